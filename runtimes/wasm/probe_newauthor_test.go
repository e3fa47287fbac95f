package wasm

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestProbeNoToolsHint: a Go guest that registers its tools in main (a
// reactor's main is never run) loaded with "the guest registers no tools"
// and nothing more; the JS and Python runtimes say how to register. The
// message now says where a Go guest registers and points at docs/abi.md §7.
func TestProbeNoToolsHint(t *testing.T) {
	err := validateRegister(&abi.ToolRegister{Format: abi.FormatVersion, Provider: abi.ProviderInfo{ID: "org.test.empty"}}, abi.Source{Path: "/p/m.wasm"})
	if err == nil {
		t.Fatal("a registration with no tools was accepted")
	}
	for _, want := range []string{"registers no tools", "init()", "main is never run", "docs/abi.md §7"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
