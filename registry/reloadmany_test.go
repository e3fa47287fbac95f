package registry

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestReloadReplacingManyVersionsNotQuadratic: a hot reload that
// replaces n versions of a name by n others is SemVer-checked (warn)
// against the versions served and those withdrawn; those were merged and
// sorted again for each new version, quadratic (2 000 versions: 2 000
// sorts of 4 000). 4n must allocate about 4 times what n did (it allocated 9 times: the
// clones, on top of the linear cost of compiling the new versions; the
// sorts took 18 s of CPU for n and 4n under -race, now 2 s).
func TestReloadReplacingManyVersionsNotQuadratic(t *testing.T) {
	const n = 500
	measure := func(n int) uint64 {
		r := New()
		r.compactAfter = 0
		var a, b []abi.ToolDef
		for i := range n {
			a = append(a, tool("t", fmt.Sprintf("1.0.%d", i)))
			b = append(b, tool("t", fmt.Sprintf("1.1.%d", i)))
		}
		if err := r.Register(prov("org.x.a"), a); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := r.Replace(prov("org.x.a"), b); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if vs := r.Versions("t"); len(vs) != n || vs[0].ver != "1.1.0" {
			t.Fatalf("%d versions of t after the reload, want %d from 1.1.0", len(vs), n)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	b1, b4 := measure(n), measure(4*n)
	ratio := float64(b4) / float64(b1)
	t.Logf("n=%d: %d bytes; 4n: %d bytes (×%.1f)", n, b1, b4, ratio)
	if ratio > 7 {
		t.Errorf("4× the versions reloaded allocated %.1f× the bytes: quadratic", ratio)
	}
}
