package wasm

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestLoadTrapErrorOneLine: a guest whose aios_register traps failed its
// load with wazero's text whole, "aios_register trapped: wasm error:
// unreachable\nwasm stack trace:\n\t.$2() i64": a load error of several
// lines, in the log and in `aios-host inspect`, where a start function's
// trap and the wasmtime engine's are one line (found by p181). Now it is
// the trap's first line.
func TestLoadTrapErrorOneLine(t *testing.T) {
	l := newTestLoader(t, Config{MemoryLimitPages: 50}, nil)
	_, err := l.Load(context.Background(), abi.Source{Path: writeFile(t, "g.wasm", mustWAT(t, abiSkeleton(`unreachable`)))})
	if err == nil {
		t.Fatal("a guest whose aios_register traps loaded")
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasSuffix(msg, "aios_register trapped: wasm error: unreachable") {
		t.Errorf("load error %q; want one line ending \"aios_register trapped: wasm error: unreachable\"", msg)
	}
}
