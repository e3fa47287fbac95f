package registry

import (
	"fmt"
	"runtime"
	"testing"
	"time"

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

// BenchmarkResolveDelta is BenchmarkResolve right after 40 more
// single-tool registrations, before the registry folds its overlays: the
// tools overlay then has a delta (overlay.go), which a lookup of a name in
// its base mostly skips through the filter.
func BenchmarkResolveDelta(b *testing.B) {
	r := synthetic10k(b)
	r.compactAfter = 0 // keep the delta (a registry at rest folds it: compact)
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
		r.compactAfter = 0
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

// TestCompact: deltas left by writes are folded once the registry is at
// rest, into a snapshot with the same content and memo.
func TestCompact(t *testing.T) {
	r := New()
	r.compactAfter = 0
	for i := range 40 {
		if err := r.Register(prov(fmt.Sprintf("org.c.p%d", i)), []abi.ToolDef{tool(fmt.Sprintf("c%d", i), "")}); err != nil {
			t.Fatal(err)
		}
	}
	s := r.snap.Load()
	if s.tools.delta == nil || s.providers.delta == nil {
		t.Fatal("40 registrations left no delta: the test tests nothing")
	}
	if _, err := r.Resolve("c7", "^1.0"); err != nil {
		t.Fatal(err)
	}
	r.compact()
	c := r.snap.Load()
	if c == s || c.tools.delta != nil || c.providers.delta != nil || c.tools.filter != nil {
		t.Fatal("compact did not fold the deltas")
	}
	if err := checkSnapshot(c); err != nil {
		t.Fatal(err)
	}
	if c.memo.get("c7", "^1.0") == nil {
		t.Error("compact dropped the memo of resolutions")
	}
	if e, err := r.Resolve("c39", ""); err != nil || e.Def.Name != "c39" {
		t.Fatalf("Resolve(c39) = %v, %v", e, err)
	}

	// The timer: folded some time after the last write.
	r2 := New()
	r2.mu.Lock()
	r2.compactAfter = time.Millisecond
	r2.mu.Unlock()
	for i := range 40 {
		if err := r2.Register(prov(fmt.Sprintf("org.c.p%d", i)), []abi.ToolDef{tool(fmt.Sprintf("c%d", i), "")}); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); r2.snap.Load().tools.delta != nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the deltas were not folded 10 s after the last write")
		}
	}
	if err := checkSnapshot(r2.snap.Load()); err != nil {
		t.Fatal(err)
	}
}
