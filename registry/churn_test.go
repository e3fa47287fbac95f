package registry

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// churn registers n single-tool providers one by one, then removes them
// one by one.
func churn(tb testing.TB, r *Registry, n int) {
	for i := range n {
		id := fmt.Sprintf("org.churn.p%05d", i)
		if err := r.Register(prov(id), []abi.ToolDef{tool(fmt.Sprintf("churn-tool-%05d", i), "1.0.0")}); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range n {
		if err := r.Unregister(fmt.Sprintf("org.churn.p%05d", i)); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkRegistryChurn: one op registers n single-tool providers one by
// one, then removes them one by one (docs/performance.md).
func BenchmarkRegistryChurn(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := New()
				r.SetSemverCheck(SemverOff, nil)
				churn(b, r, n)
			}
		})
	}
}

// BenchmarkResolveDelta is BenchmarkResolve after 40 more single-tool
// registrations: the tools overlay then has a delta (overlay.go), which a
// lookup of a name in its base mostly skips through the filter.
func BenchmarkResolveDelta(b *testing.B) {
	r := synthetic10k(b)
	for i := range 40 {
		if err := r.Register(prov(fmt.Sprintf("org.delta.p%d", i)), []abi.ToolDef{tool(fmt.Sprintf("delta-%d", i), "")}); err != nil {
			b.Fatal(err)
		}
	}
	for _, name := range []string{r.Tools()[5000].Def.Name, "delta-7"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Resolve(name, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestChurnNotQuadratic guards against a write that copies the whole
// registry (the snapshot's maps, or its sorted lists element by element):
// registering then removing 4n single-tool providers one by one must cost
// well under 16 times what n cost, both in the work the writes count
// (Registry.work: map entries copied, entries visited, chunk elements
// copied) and in bytes allocated. Not timed: the bounds hold on any
// machine, with or without -race. A write that copied everything would
// make both ratios about 16; the overlays and chunks make them 4 to 8.
func TestChurnNotQuadratic(t *testing.T) {
	const n = 400
	measure := func(n int) (work int, bytes uint64) {
		r := New()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		churn(t, r, n)
		runtime.ReadMemStats(&after)
		if got := len(r.Tools()) + len(r.Providers()); got != 0 {
			t.Fatalf("%d tools and providers left", got)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.work, after.TotalAlloc - before.TotalAlloc
	}
	w1, b1 := measure(n)
	w4, b4 := measure(4 * n)
	wr, br := float64(w4)/float64(w1), float64(b4)/float64(b1)
	t.Logf("n=%d: work %d, %d bytes; 4n: work %d (×%.1f), %d bytes (×%.1f)", n, w1, b1, w4, wr, b4, br)
	if wr > 10 {
		t.Errorf("4× the providers cost %.1f× the work (map entries and elements copied): quadratic?", wr)
	}
	if br > 10 {
		t.Errorf("4× the providers allocated %.1f× the bytes: quadratic?", br)
	}
}
