package native

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

type lookupErr struct{ key string }

func (e *lookupErr) Error() string { return "no key " + e.key }

// TestNilCustomErrorNotAPanic: a handler returning a nil *T of its own
// error type as its error (`var err *lookupErr; …; return v, err`, which Go
// does not count as a nil error) was ProviderCrashed "tool … panicked:
// runtime error: invalid memory address or nil pointer dereference", its
// stack the host's own (abi.AsToolError, convertError): the tool did not
// panic, the host did, calling the error's Error method. As the Go guest
// SDK says it, it is a ProviderError naming the tool and the error's type,
// saying that its Error method panicked and that a nil *T is not a nil
// error.
func TestNilCustomErrorNotAPanic(t *testing.T) {
	p := New(abi.ProviderInfo{ID: "org.example.nilerr"})
	p.MustRegister(abi.ToolDef{Name: "lookup"}, func(context.Context, any, abi.Env) (any, error) {
		var err *lookupErr
		return "v", err
	})
	_, err := p.Call(context.Background(), &abi.ToolCall{Tool: "lookup"}, nil)
	te, _ := err.(*abi.ToolError)
	if te == nil || te.Code != abi.ProviderError {
		t.Fatalf("%v, want ProviderError", err)
	}
	for _, want := range []string{"lookup", "*native.lookupErr", "Error method panicked", "not a nil error"} {
		if !strings.Contains(te.Message, want) {
			t.Errorf("message %q does not say %q", te.Message, want)
		}
	}
}
