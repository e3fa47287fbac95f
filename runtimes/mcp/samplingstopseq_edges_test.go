package mcp

import (
	"slices"
	"strings"
	"testing"
)

// TestSamplingStopSequences: a server's sampling request naming
// stopSequences (where the answer must end: a delimiter the server parses
// on) was sampled without them, the backend writing on past the
// delimiter; they are passed on to the backend as its stop sequences.
func TestSamplingStopSequences(t *testing.T) {
	cfg := fakeConfig(t, "sampling")
	cfg.Sampling = true
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": cfg})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	hi := []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "say hi"}}}
	text, got := sampleWith(t, p, map[string]any{"maxTokens": 10, "messages": hi, "stopSequences": []any{"\n\n", "END"}})
	if !strings.Contains(text, "sampled: hi there") || !slices.Equal(got.Stop, []string{"\n\n", "END"}) {
		t.Errorf("%s; the backend was asked stop sequences %q, want [\"\\n\\n\" \"END\"]", text, got.Stop)
	}
	text, got = sampleWith(t, p, map[string]any{"maxTokens": 10, "messages": hi})
	if !strings.Contains(text, "sampled: hi there") || got.Stop != nil {
		t.Errorf("%s; without stopSequences the backend was asked stop sequences %q, want none", text, got.Stop)
	}
}
