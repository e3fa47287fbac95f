package registry

import (
	"fmt"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestToolsAfterPages: ToolsAfter and DefaultsAfter, from every cut of
// the list (chunk boundaries included, as the lists are chunked), yield
// what follows the cut in Tools() and by name.
func TestToolsAfterPages(t *testing.T) {
	r := New()
	r.SetSemverCheck(SemverOff, nil)
	for p := range 5 {
		var tools []abi.ToolDef
		for i := p; i < 120; i += 5 {
			for _, v := range []string{"0.9.0", "1.0.0", "1.1.0-beta"} {
				tools = append(tools, tool(fmt.Sprintf("t%03d", i), v))
			}
		}
		if err := r.Register(prov(fmt.Sprintf("org.after.p%d", p)), tools); err != nil {
			t.Fatal(err)
		}
	}
	all := r.Tools()
	if got := slices.Collect(r.ToolsAfter("", nil)); !slices.Equal(got, all) {
		t.Fatalf("ToolsAfter from the start: %d tools, want %d", len(got), len(all))
	}
	var defs []*Entry
	for _, e := range all {
		if d, _ := r.Resolve(e.Def.Name, ""); d == e {
			defs = append(defs, e)
		}
	}
	if got := slices.Collect(r.DefaultsAfter("")); !slices.Equal(got, defs) {
		t.Fatalf("DefaultsAfter from the start: %d tools, want the %d defaults", len(got), len(defs))
	}
	for i, e := range all {
		if got := slices.Collect(r.ToolsAfter(e.Def.Name, e.Version)); !slices.Equal(got, all[i+1:]) {
			t.Fatalf("after %s@%s: %d tools, want %d", e.Def.Name, e.ver, len(got), len(all)-i-1)
		}
		k := slices.IndexFunc(defs, func(d *Entry) bool { return d.Def.Name > e.Def.Name })
		if k < 0 {
			k = len(defs)
		}
		if got := slices.Collect(r.DefaultsAfter(e.Def.Name)); !slices.Equal(got, defs[k:]) {
			t.Fatalf("defaults after %s: %d tools, want %d", e.Def.Name, len(got), len(defs)-k)
		}
	}
	// A cut at a name no longer (or never) registered.
	if got := slices.Collect(r.ToolsAfter("t050a", all[0].Version)); len(got) == 0 || got[0].Def.Name != "t051" {
		t.Fatalf("after the unregistered t050a: starts at %v, want t051", got[:min(1, len(got))])
	}
	if got := slices.Collect(r.DefaultsAfter("t119z")); len(got) != 0 {
		t.Fatalf("defaults after the last name: %d tools", len(got))
	}
}
