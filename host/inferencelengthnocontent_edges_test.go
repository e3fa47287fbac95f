package host

import (
	"net/http"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestInferenceCutBeforeAnyText: a reasoning model that spent max_tokens
// thinking answers content null with finish_reason "length"; that was
// Unavailable, "sent a choice without content", which tells the caller to
// try again later for the same answer. It is a ProviderError saying the
// answer was cut at max_tokens (the test tool asks for 5) before any text.
func TestInferenceCutBeforeAnyText(t *testing.T) {
	te := inferenceHost(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":null,"reasoning_content":"Let me think"},"finish_reason":"length"}]}`))
	}, 0)
	_, err := te.call("alice", "complete", nil)
	if abi.CodeOf(err) != abi.ProviderError || !strings.Contains(err.Error(), "max_tokens (5)") || !strings.Contains(err.Error(), "before any text") {
		t.Errorf("%v; want ProviderError saying it was cut at max_tokens (5) before any text", err)
	}
}
