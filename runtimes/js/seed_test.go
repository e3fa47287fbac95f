package js

import (
	"github.com/aios-host/aios-host/internal/testutil"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestSeedSummarizer loads samples/plugins/summarizer.ts — the seed's §9.5
// example, unchanged — and calls summarize against a fake host.
func TestSeedSummarizer(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadPath(t, rt, filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "summarizer.ts"))
	reg := p.Describe()
	if reg.Provider.Runtime != abi.RuntimeTS || reg.Provider.Name != "Summarizer" || reg.Provider.ID != "local.summarizer" {
		t.Errorf("provider info = %+v", reg.Provider)
	}
	if want := []string{"ReadSpace(documents)", "Inference"}; !reflect.DeepEqual(reg.Provider.Capabilities, want) {
		t.Errorf("capabilities = %v, want %v", reg.Provider.Capabilities, want)
	}
	if len(reg.Tools) != 1 || reg.Tools[0].Name != "summarize" {
		t.Fatalf("tools = %+v", reg.Tools)
	}
	def := reg.Tools[0]
	if !reflect.DeepEqual(def.CapabilityRequired, []string{"ReadSpace(documents)"}) {
		t.Errorf("capability_required = %v", def.CapabilityRequired)
	}
	if def.Parameters["type"] != "object" || !reflect.DeepEqual(def.Parameters["required"], []any{"object_id"}) {
		t.Errorf("parameters = %v", def.Parameters)
	}

	env := newFakeEnv()
	obj, _ := env.SpaceWrite(t.Context(), "documents", []byte("The quick brown fox jumps over the lazy dog."))
	var got abi.CompleteRequest
	env.complete = func(req abi.CompleteRequest) (abi.CompleteResponse, error) {
		got = req
		return abi.CompleteResponse{Text: "a fox jumps"}, nil
	}
	res, err := call(t, p, env, "summarize", map[string]any{"object_id": obj.ID, "max_words": int64(12)}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"summary": "a fox jumps", "word_count": int64(3)}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("result = %#v, want %#v", res, want)
	}
	if got.MaxTokens != 12 || !strings.Contains(got.Prompt, "Summarize in 12 words: The quick brown fox") {
		t.Errorf("complete request = %+v", got)
	}

	// Without a backend the host's Unavailable passes through unchanged.
	env.complete = nil
	_, err = call(t, p, env, "summarize", map[string]any{"object_id": obj.ID}, 5*time.Second)
	te := wantCode(t, err, abi.Unavailable)
	if !strings.Contains(te.Message, "no inference backend") {
		t.Errorf("message = %q", te.Message)
	}
}
