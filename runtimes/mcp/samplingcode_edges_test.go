package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestSamplingRefusalHasErrorCode: the bridge refused a server's
// sampling/createMessage (its caller lacking Inference, no call in
// flight, inference not configured) with a JSON-RPC error of code 0, the
// go-sdk's for a plain Go error, which is none of JSON-RPC's (the host's
// own MCP server gives such errors a standard code: docs/mcp.md). A
// refusal is -32603 (Internal error), with the reason as its message.
func TestSamplingRefusalHasErrorCode(t *testing.T) {
	cfg := fakeConfig(t, "sampling")
	cfg.Sampling = true
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": cfg})
	if err != nil {
		t.Fatal(err)
	}
	env := &samplingEnv{allow: false}
	c := &abi.ToolCall{ID: "t", Tool: "mcp-fake-sample", Params: map[string]any{}, Deadline: time.Now().Add(10 * time.Second)}
	v, err := rec.provider("org.aios.mcp.fake").Call(context.Background(), c, env)
	text := fmt.Sprint(v, err)
	if !strings.Contains(text, "lacks Inference") {
		t.Fatalf("refused sampling: %s", text)
	}
	if !strings.Contains(text, `"code":-32603`) {
		t.Errorf("the refusal's JSON-RPC error has not code -32603: %s", text)
	}
}
