package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestProviderErrorBounded: limits.max_result_bytes bounded a provider's
// result but not its error: a ToolError's Data of any size, and a message
// of any length, went whole to the caller (and into the answer of every
// server) — a provider past the limit could fail instead of returning.
// The message is cut at 64 KiB, saying so; Data over max_result_bytes is
// dropped, the message saying why; the code is kept.
func TestProviderErrorBounded(t *testing.T) {
	te := newTestHost(t, nil) // max_result_bytes: 1024
	p := native.New(abi.ProviderInfo{ID: "org.test.loud"})
	p.MustRegister(abi.ToolDef{Name: "loud", Version: "1.0.0"},
		func(_ context.Context, params any, _ abi.Env) (any, error) {
			switch params.(map[string]any)["what"] {
			case "message":
				return nil, &abi.ToolError{Code: abi.InvalidParams, Message: strings.Repeat("é", 1<<20)}
			case "data":
				return nil, &abi.ToolError{Code: abi.Unavailable, Message: "busy", Data: map[string]any{"blob": strings.Repeat("x", 4096)}}
			default:
				return nil, &abi.ToolError{Code: abi.Unavailable, Message: "small", Data: map[string]any{"retry_after": int64(3)}}
			}
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}

	_, err := te.call("alice", "loud", map[string]any{"what": "message"})
	tErr := abi.AsToolError(err, abi.Internal)
	if tErr.Code != abi.InvalidParams || len(tErr.Message) > 65<<10 || !strings.Contains(tErr.Message, "cut") || !strings.HasPrefix(tErr.Message, "éé") {
		t.Errorf("a 2 MiB error message: code %s, %d bytes, ends %q; want InvalidParams, at most 65 KiB, saying it was cut", tErr.Code, len(tErr.Message), tErr.Message[max(0, len(tErr.Message)-80):])
	}

	_, err = te.call("alice", "loud", map[string]any{"what": "data"})
	tErr = abi.AsToolError(err, abi.Internal)
	if tErr.Code != abi.Unavailable || tErr.Data != nil || !strings.Contains(tErr.Message, "busy") || !strings.Contains(tErr.Message, "limits.max_result_bytes") {
		t.Errorf("error data over max_result_bytes: code %s, data %d bytes, %q; want Unavailable, data dropped, the message naming the limit", tErr.Code, encodedLen(tErr.Data), tErr.Message)
	}

	_, err = te.call("alice", "loud", map[string]any{"what": "small"})
	tErr = abi.AsToolError(err, abi.Internal)
	if d, _ := tErr.Data.(map[string]any); tErr.Message != "small" || d["retry_after"] != int64(3) {
		t.Errorf("a small error: %q, data %v; want it unchanged", tErr.Message, tErr.Data)
	}
}
