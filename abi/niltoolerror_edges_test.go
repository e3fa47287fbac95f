package abi

import (
	"errors"
	"fmt"
	"testing"
)

// A nil *ToolError held in an error (the classic typed-nil: a helper
// returning *ToolError whose nil result is returned as error, or wrapped
// with %w) made CodeOf, AsToolError's callers and errors.Is panic with a
// nil pointer dereference, though Error() already answers "<nil>" for it.
// CodeOf of it is the fallback code (Internal) and AsToolError returns a
// ToolError saying what it got; errors.Is with a nil *ToolError on either
// side is false rather than a panic.
func TestNilToolErrorInAnErrorDoesNotPanic(t *testing.T) {
	var te *ToolError
	var direct error = te
	wrapped := fmt.Errorf("call: %w", te)
	for _, err := range []error{direct, wrapped} {
		if got := CodeOf(err); got != Internal {
			t.Errorf("CodeOf(%v) = %q, want Internal", err, got)
		}
		got := AsToolError(err, ProviderError)
		if got == nil || got.Code != ProviderError || got.Message == "" {
			t.Errorf("AsToolError(%v, ProviderError) = %#v, want ProviderError saying it was a nil *ToolError", err, got)
		}
		if errors.Is(err, &ToolError{Code: Timeout}) {
			t.Errorf("errors.Is(%v, Timeout) = true", err)
		}
	}
	if errors.Is(Errorf(Timeout, "x"), te) {
		t.Error("errors.Is(Timeout error, nil *ToolError) = true")
	}
}
