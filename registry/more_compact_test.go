package registry

import (
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCompactRace: churn with a 1 ms compaction delay so that folds
// interleave with writes and reads; every snapshot a reader sees must be
// self-consistent (checkSnapshot) and the registry at rest compacted.
func TestCompactRace(t *testing.T) {
	r := New()
	r.mu.Lock()
	r.compactAfter = time.Millisecond
	r.mu.Unlock()
	r.SetSemverCheck(SemverOff, nil)
	var stop atomic.Bool
	var writers, reader sync.WaitGroup
	var bad atomic.Value
	for w := 0; w < 2; w++ {
		writers.Add(1)
		go func(w int) {
			defer writers.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for i := 0; i < 1500; i++ {
				id := fmt.Sprintf("org.c%d.p%03d", w, rng.Intn(150))
				if rng.Intn(3) == 0 {
					_ = r.Unregister(id)
				} else {
					var tools []abi.ToolDef
					for k := 0; k < 1+rng.Intn(3); k++ {
						tools = append(tools, tool(fmt.Sprintf("w%dn%03d", w, rng.Intn(300)), fmt.Sprintf("1.%d.0", k)))
					}
					_ = r.Replace(trusted(id, abi.Community), tools)
				}
				if rng.Intn(40) == 0 {
					time.Sleep(2 * time.Millisecond)
				}
			}
		}(w)
	}
	reader.Add(1)
	go func() {
		defer reader.Done()
		for !stop.Load() {
			s := r.snap.Load()
			if err := checkSnapshot(s); err != nil {
				bad.Store(err.Error())
				return
			}
			for _, e := range s.all.slice() {
				if x, err := r.Resolve(e.Def.Name, "^1"); err == nil && x.Def.Name != e.Def.Name {
					bad.Store("Resolve returned another name")
					return
				}
			}
		}
	}()
	writers.Wait()
	stop.Store(true)
	reader.Wait()
	if b := bad.Load(); b != nil {
		t.Fatal(b)
	}
	time.Sleep(30 * time.Millisecond)
	s := r.snap.Load()
	if s.tools.delta != nil || s.providers.delta != nil {
		t.Errorf("not compacted at rest")
	}
	if err := checkSnapshot(s); err != nil {
		t.Fatal(err)
	}
}
