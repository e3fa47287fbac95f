package host

import (
	"net/http"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestInferenceContentParts: a message whose content is an array of parts
// ([{"type":"text","text":…}], as Mistral's reasoning models and some
// proxies answer) was refused as "a JSON array, where chat-completions
// JSON has a string". Its text parts are the completion now, other parts
// (a reasoning model's thinking) left out, and one without a text part is
// a choice without content; content of another JSON type is still
// refused, naming the member.
func TestInferenceContentParts(t *testing.T) {
	for body, want := range map[string]string{
		`{"choices":[{"message":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hmm"}]},{"type":"text","text":"hel"},{"type":"text","text":"lo"}]}}]}`: "hello",
		`{"choices":[{"message":{"content":"plain"}}]}`: "plain",
	} {
		te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }, 0)
		v, err := te.call("alice", "complete", nil)
		if err != nil || v != want {
			t.Errorf("%s: %v, %v; want %q", body, v, err, want)
		}
	}
	for _, body := range []string{
		`{"choices":[{"message":{"content":5}}]}`,
		`{"choices":[{"message":{"content":{"text":"x"}}}]}`,
		`{"choices":[{"message":{"content":[{"type":"text","text":5}]}}]}`,
		`{"choices":[{"message":{"content":[{"type":"thinking","thinking":"hmm"}]}}]}`,
	} {
		te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }, 0)
		_, err := te.call("alice", "complete", nil)
		if abi.CodeOf(err) != abi.Unavailable || !(strings.Contains(err.Error(), `"choices.message.content`) || strings.Contains(err.Error(), "without content")) || strings.Contains(err.Error(), "Go ") {
			t.Errorf("%s: %v; want Unavailable naming choices.message.content", body, err)
		}
	}
}
