package aios

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestToolNameCheckedAtHandle: a Go guest registering "Add Numbers"
// built and failed to load with `invalid tool name "Add Numbers"` from the
// host, naming the .wasm file but not the line that registered it. The SDK
// now refuses the name in Handle/HandleFunc, whose panic the host quotes
// with the guest's stack (main.go:LINE), by the host's rule.
func TestToolNameCheckedAtHandle(t *testing.T) {
	for _, name := range []string{"Add Numbers", "", "-x", "a/b", strings.Repeat("a", 129), "é"} {
		got := registerPanic(t, name, func() { Handle(Tool{Name: name}, func(*Call, any) (any, error) { return nil, nil }) })
		if !strings.Contains(got, "invalid tool name") {
			t.Errorf("Handle(%q): panic %q, want an invalid tool name", name, got)
		}
	}
	for _, name := range []string{"add", "A.b-c_d", "9", strings.Repeat("a", 128), "Add Numbers", "é", "a\n"} {
		if (validToolName(name) == nil) != (abi.ValidateToolName(name) == nil) {
			t.Errorf("%q: the SDK says %v, the host %v", name, validToolName(name), abi.ValidateToolName(name))
		}
	}
}
