//go:build wasmtime

package wasmtime

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// runtimes.wasm.load_timeout bounds a component's start code at load on
// wasmtime as on wazero (docs/components.md): the wasmtime loader had a
// fixed 10 s (loadStartTimeout) that the config could not change, and its
// error ("its start code did not finish by the deadline") named no key.
func TestLoadTimeoutFromOptions(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1, LoadTimeout: 300 * time.Millisecond})
	start := time.Now()
	// About 4·10⁹ iterations: seconds of start code.
	p, err := l.LoadBytes(context.Background(), abi.Source{Path: "slowstart.wasm"}, slowStartComponent(-1))
	took := time.Since(start)
	if err == nil {
		p.Close()
		t.Fatalf("a start of 4·10⁹ iterations finished within a 300 ms load_timeout (%v)", took)
	}
	want := "component slowstart.wasm: instantiate: the start functions did not finish within runtimes.wasm.load_timeout (300ms); the guest was interrupted"
	if err.Error() != want {
		t.Errorf("load error %q\nwant           %q", err, want)
	}
	if took > 5*time.Second {
		t.Errorf("the load took %v with a 300 ms load_timeout", took)
	}
}
