package registry

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestShadowChurnNotQuadratic is TestChurnNotQuadratic with every
// churned provider holding one shadowed version (imported MCP servers or
// remotes that all offer a tool a System provider serves, registered
// Partial): each write walks every shadowing provider's declared versions
// (tx.restore over snapshot.shadowing), so 4× the providers cost about
// 16× the allocations and time: a write no longer costs what it changes.
func TestShadowChurnNotQuadratic(t *testing.T) {
	measure := func(n int) (bytes uint64, d time.Duration) {
		r := New()
		r.compactAfter = 0
		r.SetSemverCheck(SemverOff, nil)
		if err := r.Register(trusted("org.sys", abi.System), []abi.ToolDef{tool("shared", "1.0.0")}); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		for i := range n {
			id := fmt.Sprintf("org.mcp.p%05d", i)
			rep, err := r.Apply(trusted(id, abi.Community), []abi.ToolDef{tool("shared", "1.0.0"), tool(fmt.Sprintf("own-%05d", i), "1.0.0")}, Options{Partial: true})
			if err != nil || len(rep.LeftOut) != 1 {
				t.Fatal(err, rep)
			}
		}
		for i := range n {
			if err := r.Unregister(fmt.Sprintf("org.mcp.p%05d", i)); err != nil {
				t.Fatal(err)
			}
		}
		d = time.Since(start)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, d
	}
	const n = 250
	b1, d1 := measure(n)
	b4, d4 := measure(4 * n)
	br := float64(b4) / float64(b1)
	t.Logf("n=%d: %d bytes %v; 4n: %d bytes (×%.1f) %v (×%.1f)", n, b1, d1, b4, br, d4, float64(d4)/float64(d1))
	if br > 10 {
		t.Errorf("4× the shadowing providers allocated %.1f× the bytes: quadratic", br)
	}
}
