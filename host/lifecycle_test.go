package host

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

type countingProvider struct {
	*native.Provider
	closes atomic.Int32
}

func (p *countingProvider) Close() error { p.closes.Add(1); return p.Provider.Close() }

func counting(id string, tools ...string) *countingProvider {
	return &countingProvider{Provider: answering(id, tools...)}
}

// AddProvider with ProviderMeta.Replaces where p's id is already
// registered by another provider is refused like any duplicate id (a probe
// found that the swap replaced that provider silently, never closing it).
func TestReplacesRefusedOntoRegisteredID(t *testing.T) {
	h, err := New(Options{Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	other := counting("org.t.b", "beta")
	if err := h.AddProvider(ctx, other, ProviderMeta{Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	if err := h.AddProvider(ctx, counting("org.t.a", "alpha"), ProviderMeta{Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	err = h.AddProvider(ctx, counting("org.t.b", "alpha"), ProviderMeta{Trust: abi.Community, Replaces: "org.t.a"})
	beta, _ := h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: "beta"})
	closes := other.closes.Load()
	h.Close()
	if err == nil && (beta == nil || closes == 0) {
		t.Fatalf("swap onto a registered id succeeded: beta = %v, the displaced holder of org.t.b closed %d times before Close", beta, closes)
	}
}

// Concurrent ReplaceProvider calls for one id: each reads the old provider
// before registering, so two replacements both close the same old provider
// and the one replaced in between is never closed.
func TestConcurrentReplaceClosesEachOnce(t *testing.T) {
	for round := 0; round < 50; round++ {
		h, err := New(Options{Config: config.Default()})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		all := []*countingProvider{counting("org.t.x", "alpha")}
		if err := h.AddProvider(ctx, all[0], ProviderMeta{Trust: abi.Community}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := 0; i < 8; i++ {
			p := counting("org.t.x", "alpha")
			mu.Lock()
			all = append(all, p)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := h.ReplaceProvider(ctx, p, ProviderMeta{Trust: abi.Community}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		h.Close()
		for i, p := range all {
			if n := p.closes.Load(); n != 1 {
				t.Fatalf("round %d: provider %d closed %d times (want 1)", round, i, n)
			}
		}
	}
}

// AddProvider racing Close: a registration that passed the closed check
// lands after Close listed the providers; it is never closed.
func TestAddProviderRacingClose(t *testing.T) {
	for round := 0; round < 200; round++ {
		h, err := New(Options{Config: config.Default()})
		if err != nil {
			t.Fatal(err)
		}
		p := counting("org.t.y", "alpha")
		var wg sync.WaitGroup
		var addErr error
		wg.Add(1)
		go func() { defer wg.Done(); addErr = h.AddProvider(context.Background(), p, ProviderMeta{}) }()
		h.Close()
		wg.Wait()
		if addErr == nil && p.closes.Load() == 0 {
			t.Fatalf("round %d: provider added concurrently with Close is registered (%v) and never closed", round, h.Registry().Provider("org.t.y") != nil)
		}
	}
}
