package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// sampleWith calls the fake server's sample tool, which sends the
// sampling/createMessage params given, and returns what the server was
// answered (its tool's result) and what the host was asked to complete.
func sampleWith(t *testing.T, p abi.Provider, params map[string]any) (string, abi.CompleteRequest) {
	t.Helper()
	env := &samplingEnv{allow: true}
	c := &abi.ToolCall{ID: "t", Tool: "mcp-fake-sample", Params: map[string]any{"params": params}, Deadline: time.Now().Add(30 * time.Second)}
	v, err := p.Call(context.Background(), c, env)
	return fmt.Sprint(v, err), env.got
}

// TestSamplingNullMessageKeepsHost: a server's sampling request holding a
// null message ("messages": [null]) panicked in the go-sdk's conversion of
// the request for the bridge's handler, in a goroutine of its own: the
// host process died. A message of several content blocks (2025-11-25) was
// refused with code 0, which is none of JSON-RPC's, telling the server
// to use a Go handler. The null message is passed over, as before, and a
// message's text blocks are its text.
func TestSamplingNullMessageKeepsHost(t *testing.T) {
	cfg := fakeConfig(t, "sampling")
	cfg.Sampling = true
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": cfg})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	hi := map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "say hi"}}
	text, got := sampleWith(t, p, map[string]any{"maxTokens": 10, "messages": []any{nil, hi}})
	if !strings.Contains(text, "sampled: hi there") || !strings.Contains(got.Prompt, "say hi") {
		t.Errorf("a null message beside one to sample: %s (asked %+v)", text, got)
	}
	two := map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "first"}, map[string]any{"type": "text", "text": "second"}}}
	text, got = sampleWith(t, p, map[string]any{"maxTokens": 10, "messages": []any{two}})
	if !strings.Contains(text, "sampled: hi there") || got.Prompt != "first\nsecond" {
		t.Errorf("a message of two text blocks: %s (asked %+v)", text, got)
	}
	img := map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "see"}, map[string]any{"type": "image", "data": "AAEC", "mimeType": "image/png"}}}
	text, got = sampleWith(t, p, map[string]any{"maxTokens": 10, "messages": []any{img}})
	if !strings.Contains(text, `"code":-32602`) || !strings.Contains(text, "messages[0].content[1]: only text content") || got.Prompt != "" {
		t.Errorf("a message with an image block: %s (asked %+v)", text, got)
	}
}
