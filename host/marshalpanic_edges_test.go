package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// panicJSON is a Go value whose own MarshalJSON panics (a bug in a native
// tool's type).
type panicJSON struct{}

func (panicJSON) MarshalJSON() ([]byte, error) { panic("index out of range [3] with length 3") }

// TestNativeMarshalPanicIsProviderCrashed: a native tool's result or
// error data holding a Go value whose MarshalJSON panics panicked in the
// host's pipeline, where the result and the error data are made canonical
// (checkResult, canonicalErrorData), past callProvider's recover and the
// native runtime's: the caller's goroutine (an HTTP request's, an MCP
// session's, a guest's call_tool) unwound through the host and the caller
// got no answer. The result is ProviderCrashed naming the tool, as the
// same panic inside native.Typed is; the error keeps its code and message,
// its data dropped saying why; and the host serves the next call.
func TestNativeMarshalPanicIsProviderCrashed(t *testing.T) {
	te := newTestHost(t, nil)
	p := native.New(abi.ProviderInfo{ID: "org.test.marshalpanic"})
	p.MustRegister(abi.ToolDef{Name: "bad-json-result", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return map[string]any{"v": panicJSON{}}, nil })
	p.MustRegister(abi.ToolDef{Name: "bad-json-data", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) {
			return nil, &abi.ToolError{Code: abi.NotFound, Message: "no such row", Data: panicJSON{}}
		})
	p.MustRegister(abi.ToolDef{Name: "fine", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	call := func(tool string) (v any, err error) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s: the host panicked: %v", tool, r)
			}
		}()
		return te.call("alice", tool, map[string]any{})
	}
	_, err := call("bad-json-result")
	if terr := abi.AsToolError(err, abi.Internal); terr == nil || terr.Code != abi.ProviderCrashed ||
		!strings.Contains(terr.Message, "bad-json-result") || !strings.Contains(terr.Message, "index out of range") {
		t.Errorf("bad-json-result: %v, want ProviderCrashed naming the tool and the panic", err)
	}
	_, err = call("bad-json-data")
	if terr := abi.AsToolError(err, abi.Internal); terr == nil || terr.Code != abi.NotFound ||
		!strings.Contains(terr.Message, "no such row") || !strings.Contains(terr.Message, "index out of range") || terr.Data != nil {
		t.Errorf("bad-json-data: %v, want the tool's NotFound, its data dropped saying why", err)
	}
	if v, err := call("fine"); err != nil || v != "ok" {
		t.Errorf("fine after the panics: %v, %v", v, err)
	}
}
