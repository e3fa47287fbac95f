package registry

import (
	"fmt"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestManyVersionsBesideManyNotQuadratic: a provider registering n
// versions of a name another provider of the same trust holds n versions
// of looked at every holder for each of its versions: 4 000 beside 4 000
// took 16 s under the registry's lock (1 000: 0.7 s), and 10 000 beside
// 10 000 (limits.max_tools_per_provider) minutes. 4n must cost well under
// 16 times the work (Registry.work, which counts the holders looked at)
// of n, for a registration and for a reload of it.
func TestManyVersionsBesideManyNotQuadratic(t *testing.T) {
	const n = 300
	measure := func(n int) int {
		r := New()
		r.compactAfter = 0
		r.SetSemverCheck(SemverOff, nil)
		var a, b []abi.ToolDef
		for i := range n {
			a = append(a, tool("t", fmt.Sprintf("1.0.%d", i)))
			b = append(b, tool("t", fmt.Sprintf("2.0.%d", i)))
		}
		if err := r.Register(prov("org.x.a"), a); err != nil {
			t.Fatal(err)
		}
		r.mu.Lock()
		w0 := r.work
		r.mu.Unlock()
		if err := r.Register(prov("org.x.b"), b); err != nil {
			t.Fatal(err)
		}
		if err := r.Replace(prov("org.x.b"), b); err != nil {
			t.Fatal(err)
		}
		if got := len(r.Versions("t")); got != 2*n {
			t.Fatalf("%d versions of t, want %d", got, 2*n)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.work - w0
	}
	w1, w4 := measure(n), measure(4*n)
	ratio := float64(w4) / float64(w1)
	t.Logf("n=%d: work %d; 4n: work %d (×%.1f)", n, w1, w4, ratio)
	if ratio > 10 {
		t.Errorf("4× the versions cost %.1f× the work (holders looked at): quadratic", ratio)
	}
}
