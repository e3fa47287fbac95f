//go:build wasmtime

package wasm

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// loopInitWAT is a guest whose _initialize never ends.
func loopInitWAT() string {
	reg, packedReg := watData(1024, `{"format":1,"provider":{"id":"org.test.loopinit"},"tools":[{"name":"t"}]}`)
	return fmt.Sprintf(`(module
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 65536))
  %s
%s  (func (export "_initialize") (loop $l (br $l)))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) unreachable)
)`, reg, bumpAlloc, packedReg)
}

// TestWasmtimeLoadHonoursCancel: the wasmtime loader ran a module's start
// (its _initialize) under context.Background(), so a load whose context
// was cancelled (SIGINT while `run` loads its plugins, a reload
// superseded) went on until runtimes.wasm.load_timeout (10 s by default)
// and then said the guest ran past load_timeout; on wazero the load stops
// at the cancel, Cancelled. It now stops at the cancel on wasmtime too.
func TestWasmtimeLoadHonoursCancel(t *testing.T) {
	const loadTimeout = 20 * time.Second
	l := newWasmtimeTestLoader(t, Config{LoadTimeout: loadTimeout})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	p, err := l.Load(ctx, abi.Source{Path: buildWAT(t, loopInitWAT())})
	took := time.Since(start)
	if err == nil {
		p.Close()
		t.Fatal("a module whose _initialize loops loaded")
	}
	if abi.CodeOf(err) != abi.Cancelled || took >= loadTimeout/2 {
		t.Errorf("load cancelled after 300ms: %v (after %v), want Cancelled well before load_timeout (%v)", err, took, loadTimeout)
	}
}
