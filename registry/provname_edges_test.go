package registry

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestLongProviderNameNotCopiedPerTool: each tool's search text held its
// own lower-cased copy of its provider's name and id, so a provider that
// named itself with 1 MB (at no cost to a guest) and registered 200 tools
// kept 200 MB of search text (10 000 tools, the default limit: 10 GB).
// The provider's text is now one string shared by its tools, and a search
// still finds the tools by their provider's name and id, ranked as
// description text.
func TestLongProviderNameNotCopiedPerTool(t *testing.T) {
	r := New()
	r.SetSemverCheck(SemverOff, nil)
	p := prov("org.x.big")
	p.Info.Name = strings.Repeat("Acme ", 200_000) + "Widgets"
	var defs []abi.ToolDef
	for i := range 200 {
		defs = append(defs, abi.ToolDef{Name: fmt.Sprintf("tool-%03d", i), Description: "does widgets"})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := r.Register(p, defs); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 50<<20 {
		t.Errorf("registering 200 tools of a provider named with 1 MB kept %d MB", grew>>20)
	}
	for _, q := range []string{"ACME", "widgets", "org.x.big", "acme big"} {
		got := r.Search(Query{Text: q, Limit: 1000})
		if len(got) != 200 {
			t.Errorf("%q found %d tools, want 200", q, len(got))
		}
	}
	if got := r.Search(Query{Text: "acme zzz"}); len(got) != 0 {
		t.Errorf("acme zzz found %d tools", len(got))
	}
	// Ranked as description text: a tool whose name holds the token first.
	q := prov("org.y.other")
	if err := r.Register(q, []abi.ToolDef{{Name: "acme-thing"}}); err != nil {
		t.Fatal(err)
	}
	if got := r.Search(Query{Text: "acme"}); len(got) == 0 || got[0].Def.Name != "acme-thing" {
		t.Errorf("acme: first %v", got)
	}
}
