package registry

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestOverlayModel: overlay.with/folded/get/all/len against a plain
// map, with deletions and re-adds of one key across folds.
func TestOverlayModel(t *testing.T) {
	for seed := int64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		o := newOverlay[int]()
		ref := map[string]*int{}
		keys := 20 + rng.Intn(2000)
		for step := 0; step < 200; step++ {
			ch := map[string]*int{}
			for k := rng.Intn(40); k >= 0; k-- {
				key := fmt.Sprintf("k%d", rng.Intn(keys))
				if rng.Intn(3) == 0 {
					ch[key] = nil
				} else {
					v := rng.Int()
					ch[key] = &v
				}
			}
			w := 0
			if rng.Intn(10) == 0 {
				o = o.folded()
			}
			o = o.with(ch, &w)
			for k, v := range ch {
				if v == nil {
					delete(ref, k)
				} else {
					ref[k] = v
				}
			}
			if o.len() != len(ref) {
				t.Fatalf("seed %d step %d: len %d want %d", seed, step, o.len(), len(ref))
			}
			n := 0
			for k, v := range o.all {
				n++
				if ref[k] != v {
					t.Fatalf("seed %d step %d: all yields %s", seed, step, k)
				}
			}
			if n != len(ref) {
				t.Fatalf("seed %d step %d: all yields %d want %d", seed, step, n, len(ref))
			}
			for i := 0; i < keys; i += 1 + rng.Intn(5) {
				k := fmt.Sprintf("k%d", i)
				if o.get(k) != ref[k] {
					t.Fatalf("seed %d step %d: get(%s)", seed, step, k)
				}
			}
		}
	}
}
