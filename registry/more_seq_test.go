package registry

import (
	"cmp"
	"math/rand"
	"slices"
	"testing"
)

// TestSeqPatchModel: seq.patch against a plain sorted slice, with
// sizes around the chunk boundaries (127..130, 0, many at once) and
// deletions emptying chunks.
func TestSeqPatchModel(t *testing.T) {
	for seed := int64(0); seed < 80; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var s seq[int]
		var ref []int
		next := 0
		for step := 0; step < 60; step++ {
			// choose deletions
			var dels []int
			for _, x := range ref {
				if rng.Intn(4) == 0 || (step%7 == 0 && rng.Intn(2) == 0) {
					dels = append(dels, x)
				}
			}
			nIns := rng.Intn(4)
			switch rng.Intn(6) {
			case 0:
				nIns = 127 + rng.Intn(4)
			case 1:
				nIns = 300
			}
			var ins []int
			set := map[int]bool{}
			for _, x := range ref {
				set[x] = true
			}
			for len(ins) < nIns {
				x := rng.Intn(100000)
				if !set[x] {
					set[x] = true
					ins = append(ins, x)
				}
			}
			// also replace a deleted element by an equal one sometimes
			slices.Sort(ins)
			var del []pos
			for _, x := range dels {
				p, found := seek(s, x, cmp.Compare[int])
				if !found {
					t.Fatalf("seed %d: %d not found", seed, x)
				}
				del = append(del, p)
			}
			var at []pos
			for _, x := range ins {
				p, _ := seek(s, x, cmp.Compare[int])
				at = append(at, p)
			}
			w := 0
			s = s.patch(del, ins, at, &w)
			ref = slices.DeleteFunc(ref, func(x int) bool { return slices.Contains(dels, x) })
			ref = append(ref, ins...)
			slices.Sort(ref)
			_ = next
			if got := s.slice(); !slices.Equal(got, ref) {
				t.Fatalf("seed %d step %d: seq %v, want %v", seed, step, len(got), len(ref))
			}
			tot := 0
			for i, c := range s.chunks {
				if len(c) == 0 || len(c) > maxChunk {
					t.Fatalf("seed %d step %d: chunk %d has %d", seed, step, i, len(c))
				}
				tot += len(c)
			}
			if tot != s.n {
				t.Fatalf("n %d, chunks %d", s.n, tot)
			}
		}
	}
}
