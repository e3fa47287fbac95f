package native

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// registerBytes is the memory allocated while n tools are registered on
// a new provider, which is returned.
func registerBytes(t testing.TB, n int) (uint64, *Provider) {
	t.Helper()
	defs := make([]abi.ToolDef, n)
	for i := range defs {
		defs[i] = abi.ToolDef{Name: fmt.Sprintf("t%d", i), Version: "1.0.0"}
	}
	h := func(_ context.Context, params any, _ abi.Env) (any, error) { return params, nil }
	p := New(abi.ProviderInfo{ID: "org.test.many"})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, d := range defs {
		if err := p.Register(d, h); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, p
}

// TestRegisterManyToolsNotQuadratic: registering a tool copied the whole
// table of those registered before it: memory and time grew with the
// square of their number (10 000 tools: 10 s). Four times the tools now
// cost well under sixteen times the memory; every tool is there and
// callable.
func TestRegisterManyToolsNotQuadratic(t *testing.T) {
	const n = 2000
	small, _ := registerBytes(t, n)
	large, p := registerBytes(t, 4*n)
	if large > 10*small {
		t.Errorf("registering %d tools allocated %d bytes, %d tools %d: %.1f times as much (the square would be 16)", n, small, 4*n, large, float64(large)/float64(small))
	}
	if got := len(p.Describe().Tools); got != 4*n {
		t.Fatalf("Describe lists %d tools, want %d", got, 4*n)
	}
	for i := range 4 * n {
		name := fmt.Sprintf("t%d", i)
		if p.Describe().Tools[i].Name != name {
			t.Fatalf("tool %d is %q, want %q", i, p.Describe().Tools[i].Name, name)
		}
		got, err := p.Call(context.Background(), &abi.ToolCall{Tool: name, Version: "1.0.0", Params: name}, nil)
		if err != nil || got != name {
			t.Fatalf("call %s: %v, %v", name, got, err)
		}
	}
}

// TestDescribeSnapshotKept: a registration message taken before further
// Registers keeps its tools (the definitions share an array that later
// Registers append to), and an append by its holder does not reach them.
func TestDescribeSnapshotKept(t *testing.T) {
	h := func(_ context.Context, params any, _ abi.Env) (any, error) { return params, nil }
	p := New(abi.ProviderInfo{ID: "org.test.snap"})
	for i := range 5 {
		p.MustRegister(abi.ToolDef{Name: fmt.Sprintf("a%d", i)}, h)
	}
	snap := p.Describe()
	_ = append(snap.Tools, abi.ToolDef{Name: "intruder"})
	for i := range 50 {
		p.MustRegister(abi.ToolDef{Name: fmt.Sprintf("b%d", i)}, h)
	}
	if len(snap.Tools) != 5 || snap.Tools[4].Name != "a4" {
		t.Fatalf("the earlier message changed: %d tools", len(snap.Tools))
	}
	now := p.Describe().Tools
	if len(now) != 55 || now[5].Name != "b0" || now[54].Name != "b49" {
		t.Fatalf("%d tools: %v …", len(now), now[:6])
	}
}

// BenchmarkRegisterManyTools: registering 1 000 and 10 000 tools on one
// provider (10 000: 10 s before, the square of the number).
func BenchmarkRegisterManyTools(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				registerBytes(b, n)
			}
		})
	}
}
