package mcp

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestSamplingMaxTokensOutOfRange: a server's sampling request whose
// maxTokens no backend takes (negative, or past 2^31-1) went on to the
// host's inference, whose refusal (InvalidParams) came back as -32603,
// Internal error, though the request was at fault. It is -32602 naming
// maxTokens and the range, and no completion is asked for.
func TestSamplingMaxTokensOutOfRange(t *testing.T) {
	cfg := fakeConfig(t, "sampling")
	cfg.Sampling = true
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": cfg})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	hi := []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "say hi"}}}
	for _, n := range []int64{-1, 1 << 31, 1 << 40} {
		text, got := sampleWith(t, p, map[string]any{"maxTokens": n, "messages": hi})
		if !strings.Contains(text, `"code":-32602`) || !strings.Contains(text, "maxTokens") || !strings.Contains(text, "2147483647") {
			t.Errorf("maxTokens %d: %s; want -32602 naming maxTokens and its range", n, text)
		}
		if !reflect.DeepEqual(got, abi.CompleteRequest{}) {
			t.Errorf("maxTokens %d: a completion was asked for: %+v", n, got)
		}
	}
	if text, got := sampleWith(t, p, map[string]any{"maxTokens": 1<<31 - 1, "messages": hi}); !strings.Contains(text, "sampled: hi there") || got.MaxTokens != 1<<31-1 {
		t.Errorf("maxTokens 2^31-1: %s (asked %+v)", text, got)
	}
}
