package registry

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestManyVersionsComeBackNotQuadratic: when the provider shadowing n
// versions of a less trusted provider goes, they come back; each was
// checked against every holder of the name and had the provider's entries
// copied and sorted again, quadratic: 1 000 versions took 0.24 s, 4 000
// 4.8 s (10 000, limits.max_tools_per_provider, half a minute under the
// registry's lock). 4n must allocate well under 16 times what n did.
func TestManyVersionsComeBackNotQuadratic(t *testing.T) {
	const n = 500
	measure := func(n int) uint64 {
		r := New()
		r.compactAfter = 0
		r.SetSemverCheck(SemverOff, nil)
		var a []abi.ToolDef
		for i := range n {
			a = append(a, tool("t", fmt.Sprintf("1.0.%d", i)))
		}
		if err := r.Register(trusted("org.x.a", abi.Community), a); err != nil {
			t.Fatal(err)
		}
		if err := r.Register(trusted("org.x.s", abi.System), []abi.ToolDef{tool("t", "9.0.0")}); err != nil {
			t.Fatal(err)
		}
		if got := len(r.Versions("t")); got != 1 {
			t.Fatalf("%d versions of t served beside the System provider's, want 1", got)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := r.Unregister("org.x.s"); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if got := len(r.Versions("t")); got != n {
			t.Fatalf("%d versions of t back, want %d", got, n)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	b1, b4 := measure(n), measure(4*n)
	ratio := float64(b4) / float64(b1)
	t.Logf("n=%d: %d bytes; 4n: %d bytes (×%.1f)", n, b1, b4, ratio)
	if ratio > 10 {
		t.Errorf("4× the versions coming back allocated %.1f× the bytes: quadratic", ratio)
	}
}
