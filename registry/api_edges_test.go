package registry

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// SemVer §3: once a version is released its contents must not change. A
// hot reload that redefined greet@1.0.0 so that it breaks that version's
// own callers (a parameter became required) was accepted without a word
// under registry.semver_check refuse, and with no warning under warn:
// the check compared a version only with the releases below it, and a
// redefinition has none to compare with (or an older major). The previous
// definition of the same version is now compared too.
func TestSameVersionBreakingRedefinition(t *testing.T) {
	loose := abi.ToolDef{Name: "greet", Version: "1.0.0", Parameters: map[string]any{"type": "object"}}
	strict := abi.ToolDef{Name: "greet", Version: "1.0.0+rebuilt", Parameters: map[string]any{"type": "object", "required": []any{"lang"},
		"properties": map[string]any{"lang": map[string]any{"type": "string"}}}}
	older := abi.ToolDef{Name: "greet", Version: "0.9.0", Parameters: map[string]any{"type": "object"}}

	r := New()
	if err := r.SetSemverCheck(SemverRefuse, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(prov("org.x.p"), []abi.ToolDef{older, loose}); err != nil {
		t.Fatal(err)
	}
	err := r.Replace(prov("org.x.p"), []abi.ToolDef{older, strict})
	wantCode(t, err, abi.InvalidRequest, "greet@1.0.0", "required-added", "2.0.0")
	if e, _ := r.Resolve("greet", "1.0.0"); e == nil || len(e.Def.Parameters) != 1 {
		t.Fatalf("refused reload changed greet@1.0.0: %+v", e)
	}
	// A compatible redefinition (an optional property) is fine, and so is
	// a pre-release's (no promise).
	widened := abi.ToolDef{Name: "greet", Version: "1.0.0", Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"lang": map[string]any{"type": "string"}}}}
	if err := r.Replace(prov("org.x.p"), []abi.ToolDef{older, widened}); err != nil {
		t.Fatalf("compatible redefinition refused: %v", err)
	}
	pre := abi.ToolDef{Name: "greet", Version: "1.1.0-rc.1", Parameters: map[string]any{"type": "object"}}
	preStrict := pre
	preStrict.Parameters = strict.Parameters
	if err := r.Replace(prov("org.x.p"), []abi.ToolDef{older, widened, pre}); err != nil {
		t.Fatal(err)
	}
	if err := r.Replace(prov("org.x.p"), []abi.ToolDef{older, widened, preStrict}); err != nil {
		t.Fatalf("pre-release redefinition refused: %v", err)
	}

	// A version the provider did not declare (an MCP server's tools have
	// none: 1.0.0 is filled in) promises nothing.
	u := New()
	if err := u.SetSemverCheck(SemverRefuse, nil); err != nil {
		t.Fatal(err)
	}
	unversioned := loose
	unversioned.Version = ""
	if err := u.Register(prov("org.x.mcp"), []abi.ToolDef{unversioned}); err != nil {
		t.Fatal(err)
	}
	unversioned.Parameters = strict.Parameters
	if err := u.Replace(prov("org.x.mcp"), []abi.ToolDef{unversioned}); err != nil {
		t.Fatalf("redefinition of an undeclared version refused: %v", err)
	}

	// Under warn it is registered, with the violation on the entry.
	w := New()
	var warned []SemverViolation
	if err := w.SetSemverCheck(SemverWarn, func(v SemverViolation) { warned = append(warned, v) }); err != nil {
		t.Fatal(err)
	}
	if err := w.Register(prov("org.x.p"), []abi.ToolDef{loose}); err != nil {
		t.Fatal(err)
	}
	if err := w.Replace(prov("org.x.p"), []abi.ToolDef{strict}); err != nil {
		t.Fatal(err)
	}
	e, err := w.Resolve("greet", "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Violation == nil || e.Violation.Previous != "1.0.0" || len(warned) != 1 || !strings.Contains(warned[0].String(), "greet@1.0.0") {
		t.Fatalf("warn: violation %+v, warned %v", e.Violation, warned)
	}
}
