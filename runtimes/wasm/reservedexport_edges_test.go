package wasm

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestGuestExportingTickRefused: a guest that exports a name of its
// own called aios_tick made its instrumented form invalid (two exports of
// one name), so the loader ran it unrewritten under wazero's checks,
// which are at loop headers only: any guest could opt out of the
// instrumentation, and a recursion without a loop then ran past every
// deadline (TestRecursionWithoutLoopInterrupted). The name is the
// host's: the load is refused, naming it.
func TestGuestExportingTickRefused(t *testing.T) {
	src := strings.Replace(treeWAT("org.test.tick", 34, false), `(memory (export "memory") 2)`,
		`(memory (export "memory") 2) (func (export "aios_tick") (result i32) (i32.const 1))`, 1)
	l := newTestLoader(t, Config{DeadlineGranularity: time.Millisecond}, nil)
	p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, src)})
	if err == nil {
		defer p.Close()
		t.Fatalf("loaded, instrumented = %v", p.(*Provider).instrumented)
	}
	if !strings.Contains(err.Error(), `exports "aios_tick"`) || !strings.Contains(err.Error(), "reserve") {
		t.Fatalf("load error does not say the export name aios_tick is the host's: %v", err)
	}
	t.Log(err)
}
