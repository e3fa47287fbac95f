package wasm

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestNoToolsHint: a Go guest that registers its tools in main (a
// reactor's main is never run) loaded with "the guest registers no tools"
// and nothing more; the JS and Python runtimes say how to register. The
// message now says where a Go guest registers and points at docs/abi.md §7.
func TestNoToolsHint(t *testing.T) {
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

// TestMissingFormatHint: a guest written without an SDK (C, WAT,
// another language) whose ToolRegister left out "format" failed "ToolRegister
// format 0, want 1": the 0 is no value the author wrote. The message now
// says the member is missing and where the ToolRegister is described.
func TestMissingFormatHint(t *testing.T) {
	err := validateRegister(&abi.ToolRegister{Provider: abi.ProviderInfo{ID: "org.test.wat"}, Tools: []abi.ToolDef{{Name: "t"}}}, abi.Source{Path: "/p/g.wasm"})
	if err == nil || !strings.Contains(err.Error(), `no "format"`) || !strings.Contains(err.Error(), `"format": 1`) || !strings.Contains(err.Error(), "docs/abi.md") {
		t.Errorf("missing format: %v", err)
	}
	err = validateRegister(&abi.ToolRegister{Format: 2, Provider: abi.ProviderInfo{ID: "org.test.wat"}, Tools: []abi.ToolDef{{Name: "t"}}}, abi.Source{Path: "/p/g.wasm"})
	if err == nil || !strings.Contains(err.Error(), "format 2, want 1") {
		t.Errorf("format 2: %v", err)
	}
}
