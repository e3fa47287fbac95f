package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// finishEnv is an Env whose Complete answers with a given finish reason.
type finishEnv struct {
	abi.Env
	reason string
}

func (e *finishEnv) Complete(context.Context, abi.CompleteRequest) (abi.CompleteResponse, error) {
	return abi.CompleteResponse{Text: "partial", Model: "m1", FinishReason: e.reason}, nil
}

// TestSamplingStopReason: every sampling answer told the server
// stopReason "endTurn", also one the backend had cut at maxTokens
// (finish_reason "length"), which the server then took as whole. The
// backend's reason is mapped: "length" → "maxTokens", "stop" or none →
// "endTurn", another passed on as it is.
func TestSamplingStopReason(t *testing.T) {
	cfg := fakeConfig(t, "sampling")
	cfg.Sampling = true
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": cfg})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	for reason, want := range map[string]string{"length": "maxTokens", "stop": "endTurn", "": "endTurn", "tool_calls": "tool_calls"} {
		c := &abi.ToolCall{ID: "t", Tool: "mcp-fake-sample", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
		v, err := p.Call(context.Background(), c, &finishEnv{reason: reason})
		if text := fmt.Sprint(v, err); err != nil || !strings.Contains(text, "sampled: partial [stop: "+want+"]") {
			t.Errorf("finish_reason %q: %s; want the server told stopReason %q", reason, text, want)
		}
	}
}
