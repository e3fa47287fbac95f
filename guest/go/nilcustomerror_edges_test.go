package aios

import (
	"strings"
	"testing"
)

type lookupErr struct{ key string }

func (e *lookupErr) Error() string { return "no key " + e.key }

// TestNilCustomErrorSaysNotNil: a handler returning a nil *T of its own
// error type (`var err *lookupErr; …; return v, err`) was a ProviderError
// "its Error method panicked: runtime error: invalid memory address or nil
// pointer dereference", which left the author looking for a bug in Error;
// a nil *aios.Error was already told that it is not a nil error. The
// message now says so for any nil pointer error, as a native tool's does.
func TestNilCustomErrorSaysNotNil(t *testing.T) {
	probeTool(t, "probe-nil-custom-err", func() {
		Handle(Tool{Name: "probe-nil-custom-err"}, func(c *Call, p any) (any, error) {
			var err *lookupErr
			return "v", err
		})
	})
	_, terr := serveResult(t, "probe-nil-custom-err", nil)
	if terr == nil || terr.Code != ProviderError || !strings.Contains(terr.Message, "*aios.lookupErr") || !strings.Contains(terr.Message, "not a nil error") {
		t.Fatalf("%+v, want a ProviderError saying the nil *aios.lookupErr is not a nil error", terr)
	}
}
