package wasm

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestWaiterOnClosedProviderTold (found by p164): a call that waited for
// the busy instance of a provider (pool_size 1) closed meanwhile failed,
// once the busy call ended, with the engine's internals: wazero's
// "<file>: instantiate: source module must be compiled before
// instantiation", wasmtime's "wasm provider <file> is closed" (the
// path, where a call after Close is told the provider's id). Both say now
// what a call after Close is told: Unavailable, "wasm provider <id> is
// closed". And it is told at once (p164's leftover: it was told only
// when the busy call ended, or at its own deadline as "all 1 instances …
// were busy"), not after the busy call, which runs on to its deadline.
func TestWaiterOnClosedProviderTold(t *testing.T) {
	g := newEdgeGuest(edgeReg)
	g.call = `(loop $l (br $l)) (i64.const 0)`
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p := edgeLoad(t, e, Config{PoolSize: 1}, g.wat())
			stats := p.(interface{ PoolStats() (int, int) })
			busy := make(chan error, 1)
			go func() {
				_, err := call(p, newFakeEnv(p, 3), "t", map[string]any{}, 8*time.Second)
				busy <- err
			}()
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if _, b := stats.PoolStats(); b == 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the first call did not take the instance within 20s")
				}
			}
			waiter := make(chan error, 1)
			go func() {
				_, err := call(p, newFakeEnv(p, 3), "t", map[string]any{}, 60*time.Second)
				waiter <- err
			}()
			time.Sleep(200 * time.Millisecond) // the waiter waits for the instance
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-waiter:
				if abi.CodeOf(err) != abi.Unavailable || err.Error() != "Unavailable: wasm provider org.probe.abi is closed" {
					t.Fatalf("the waiting call: %v, want Unavailable: wasm provider org.probe.abi is closed", err)
				}
			case err := <-busy:
				t.Fatalf("the busy call ended (%v) before the waiting call was told the provider is closed", err)
			}
			if err := <-busy; abi.CodeOf(err) != abi.Timeout {
				t.Fatalf("the busy call: %v, want Timeout", err)
			}
		})
	}
}
