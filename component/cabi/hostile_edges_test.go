package cabi

import (
	"runtime"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/wit"
)

// TestLiftBudgetCountsHostMemory: the lift budget ("256 MiB of lifted
// data per call", docs/components.md) charged one byte per list element
// besides the guest's bytes, but the host keeps each element in a 16-byte
// wit.Value (and a record's fields in a slice of their own): a guest
// returning list<bool> of 2^27 elements (128 MiB of its memory, within the
// budget) made the host allocate 2 GiB before the JSON conversion doubled
// it. Each type below fills the budget's worth of guest memory; lifting
// must either stop at the budget or allocate about what the budget allows.
func TestLiftBudgetCountsHostMemory(t *testing.T) {
	const budget = 8 << 20
	u8 := prim(wit.KindU8)
	for _, tc := range []struct {
		name string
		elem *wit.Type
	}{
		{"list<bool>", prim(wit.KindBool)},
		{"list<u32>", prim(wit.KindU32)},
		{"list<option<u8>>", option(u8)},
		{"list<tuple<u8,u8,u8,u8>>", tuple(u8, u8, u8, u8)},
		{"list<record of 16 bools>", record(prim(wit.KindBool), prim(wit.KindBool), prim(wit.KindBool), prim(wit.KindBool),
			prim(wit.KindBool), prim(wit.KindBool), prim(wit.KindBool), prim(wit.KindBool),
			prim(wit.KindBool), prim(wit.KindBool), prim(wit.KindBool), prim(wit.KindBool),
			prim(wit.KindBool), prim(wit.KindBool), prim(wit.KindBool), prim(wit.KindBool))},
		{"list<string> (empty)", prim(wit.KindString)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := mustCompile(t, list(tc.elem))
			es := ct.elem.Size
			n := uint32(budget / (uint64(es) + 1)) // what the old accounting let through
			cx, m := newCx(int(n*es) + 64)
			// u32 values above 255 are boxed by the host; fill them in.
			if tc.elem.Kind == wit.KindU32 {
				for i := uint32(0); i < n; i++ {
					m.b[64+4*i+1] = 1
				}
			}
			for _, k := range []uint32{n, n / 32} {
				cx.Budget = budget
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				v, err := cx.liftFlat(ct, &flatIter{vals: []uint64{64, uint64(k)}})
				runtime.ReadMemStats(&after)
				alloc := after.TotalAlloc - before.TotalAlloc
				runtime.KeepAlive(v)
				if err != nil {
					if !strings.Contains(err.Error(), "budget") || k != n {
						t.Fatalf("%d elements: err = %v", k, err)
					}
					continue
				}
				// What lifting allocates is about what it charged.
				if charged := uint64(budget - cx.Budget); alloc > charged*3/2+4096 {
					t.Fatalf("lifting %d elements of %d bytes was charged %d bytes of the budget and allocated %d bytes of host memory (%.1f×)",
						k, es, charged, alloc, float64(alloc)/float64(charged))
				}
			}
		})
	}
}
