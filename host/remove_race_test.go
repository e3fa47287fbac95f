package host

import (
	"context"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// RemoveProvider reads the record (h.reg.Provider) and then removes
// whatever is registered under the id: a ReplaceProvider in between makes
// it remove the new provider but close the old one (which the replace
// closes too) — the new one is never closed, the old one twice.
func TestRemoveRacingReplaceClosesEachOnce(t *testing.T) {
	for round := 0; round < 300; round++ {
		h, err := New(Options{Config: config.Default()})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		a, b := counting("org.t.r", "alpha"), counting("org.t.r", "alpha")
		if err := h.AddProvider(ctx, a, ProviderMeta{Trust: abi.Community}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var repErr error
		wg.Add(2)
		go func() { defer wg.Done(); repErr = h.ReplaceProvider(ctx, b, ProviderMeta{Trust: abi.Community}) }()
		go func() { defer wg.Done(); _ = h.RemoveProvider("org.t.r") }()
		wg.Wait()
		h.Close()
		if repErr == nil && (a.closes.Load() != 1 || b.closes.Load() != 1) {
			t.Fatalf("round %d: old closed %d times, new closed %d times (want 1, 1)", round, a.closes.Load(), b.closes.Load())
		}
	}
}

// RemoveProvider is not excluded from Close (h.life): both close the
// provider when Close lists it before RemoveProvider's Remove.
func TestRemoveRacingCloseClosesOnce(t *testing.T) {
	for round := 0; round < 300; round++ {
		h, err := New(Options{Config: config.Default()})
		if err != nil {
			t.Fatal(err)
		}
		p := counting("org.t.c", "alpha")
		if err := h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.Community}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); _ = h.RemoveProvider("org.t.c") }()
		h.Close()
		wg.Wait()
		if n := p.closes.Load(); n != 1 {
			t.Fatalf("round %d: provider closed %d times (want 1)", round, n)
		}
	}
}
