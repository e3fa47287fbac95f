package host

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// The seed's Rust handler fails with a bare variant,
// `.ok_or(ToolError::InvalidParams)?` (§9.3), and every SDK allows the
// same (Python `raise ToolError(ToolError.InvalidParams)`, JS `throw new
// ToolError(ToolError.InvalidParams)`). The caller got "InvalidParams: "
// and nothing else: neither the tool nor the provider that failed, nor that
// it said no more. The code is kept and the message names both.
func TestBareToolErrorNamed(t *testing.T) {
	te := newTestHost(t, nil)
	p := native.New(abi.ProviderInfo{ID: "org.test.bare"})
	p.MustRegister(abi.ToolDef{Name: "bare-invalid", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) {
			return nil, &abi.ToolError{Code: abi.InvalidParams, Data: map[string]any{"field": "object_id"}}
		})
	p.MustRegister(abi.ToolDef{Name: "blank", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) {
			return nil, &abi.ToolError{Code: abi.NotFound, Message: " \n"}
		})
	p.MustRegister(abi.ToolDef{Name: "plain", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return nil, errors.New("") })
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for tool, code := range map[string]abi.ErrorCode{"bare-invalid": abi.InvalidParams, "blank": abi.NotFound, "plain": abi.ProviderError} {
		_, err := te.call("alice", tool, map[string]any{})
		var terr *abi.ToolError
		if !errors.As(err, &terr) || terr.Code != code {
			t.Fatalf("%s: %v, want code %s", tool, err, code)
		}
		for _, want := range []string{tool, "org.test.bare", "no message"} {
			if !strings.Contains(terr.Message, want) {
				t.Errorf("%s: message %q lacks %q", tool, terr.Message, want)
			}
		}
	}
	// The data the tool gave is kept.
	_, err := te.call("alice", "bare-invalid", map[string]any{})
	if d, _ := abi.AsToolError(err, abi.Internal).Data.(map[string]any); d["field"] != "object_id" {
		t.Fatalf("data of bare-invalid's error: %v", abi.AsToolError(err, abi.Internal).Data)
	}
	// A message given is left alone.
	if _, err := te.call("alice", "bad-result", nil); err == nil || strings.Contains(err.Error(), "no message") {
		t.Fatalf("bad-result: %v", err)
	}
}
