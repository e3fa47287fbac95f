package schema

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSlowSchemaInstancesShared: a schema with patterns keeps compiled
// instances for concurrent validations (each has its own pattern budget),
// and compiled another whenever none was idle. A schema near the
// subschema bound takes seconds to compile: each concurrent call spent
// them before its provider ran (found by p177). A schema whose compilation
// was slow has at most maxSlowInsts instances; validations wait for one.
func TestSlowSchemaInstancesShared(t *testing.T) {
	doc := map[string]any{"type": "object", "properties": map[string]any{
		"code": map[string]any{"type": "string", "pattern": `^(?=[A-Z])[A-Z0-9]{3}$`}, // a lookahead: an ECMA pattern
	}}
	for _, slow := range []bool{true, false} {
		v, err := Compile("codes", doc)
		if err != nil {
			t.Fatal(err)
		}
		if v.insts == nil {
			t.Fatal("the schema's patterns keep no instances")
		}
		v.insts.slow = slow
		var compiles atomic.Int32
		compile := v.insts.compile
		v.insts.compile = func() (*refInst, error) { compiles.Add(1); return compile() }
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 32 {
			wg.Go(func() {
				<-start
				for range 20 {
					value := map[string]any{"code": "AB1"}
					if i%2 == 1 {
						value["code"] = "ab1"
					}
					err := v.Validate(value)
					if (err == nil) != (i%2 == 0) {
						t.Errorf("validation %d: %v", i, err)
					}
				}
			})
		}
		close(start)
		wg.Wait()
		v.insts.mu.Lock()
		made := v.insts.made
		v.insts.mu.Unlock()
		if slow && (made > maxSlowInsts || compiles.Load() > maxSlowInsts-1) {
			t.Errorf("a slow schema: %d instances, %d compiled for 32 concurrent validations, want at most %d", made, compiles.Load(), maxSlowInsts)
		}
		if !slow && made < 1 {
			t.Errorf("a quick schema: %d instances", made)
		}
	}
}

// TestSlowPoolDroppedInstanceMadeAgain: a validation waiting for one of a
// slow schema's instances, when the one it waits for is dropped (its
// validation panicked), gets a new one rather than wait for ever.
func TestSlowPoolDroppedInstanceMadeAgain(t *testing.T) {
	var compiles atomic.Int32
	p := newRefPool(func() (*refInst, error) { compiles.Add(1); return &refInst{}, nil }, true)
	a, _ := p.get()
	_, _ = p.get()
	if a == nil || compiles.Load() != maxSlowInsts {
		t.Fatalf("%d compiled for %d validations", compiles.Load(), maxSlowInsts)
	}
	got := make(chan *refInst, 1)
	go func() { x, _ := p.get(); got <- x }()
	p.drop() // a's validation panicked
	select {
	case x := <-got:
		if x == nil || compiles.Load() != maxSlowInsts+1 {
			t.Errorf("got %v after %d compilations", x, compiles.Load())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a validation waited for an instance that was dropped")
	}
}
