package wasm

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// loopExportWAT is a guest whose export name (aios_register or
// aios_abi_version) never returns.
func loopExportWAT(name string) string {
	reg, packedReg := watData(1024, `{"format":1,"provider":{"id":"org.test.loopreg"},"tools":[{"name":"t"}]}`)
	say, packedSay := watData(900, "looping")
	reg += say
	loop := fmt.Sprintf(`(call $log (i32.const 1) (i32.const %d) (i32.const %d)) (loop $l (br $l))`, packedSay>>32, uint32(packedSay))
	register := fmt.Sprintf(`(func (export "aios_register") (result i64) (i64.const %d))`, packedReg)
	version := `(func (export "aios_abi_version") (result i32) (i32.const 1))`
	switch name {
	case exportRegister:
		register = `(func (export "aios_register") (result i64) ` + loop + ` (i64.const 0))`
	case exportVersion:
		version = `(func (export "aios_abi_version") (result i32) ` + loop + ` (i32.const 1))`
	}
	return fmt.Sprintf(`(module
  (import "aios" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 65536))
  %s
%s  %s
  %s
  (func (export "aios_call") (param i32 i32) (result i64) unreachable)
)`, reg, bumpAlloc, version, register)
}

// TestLoadCancelStopsRegister: a load whose context is cancelled (SIGINT
// while `run` loads its plugins, a reload superseded) stops at the cancel
// in every load step, Cancelled. It did in the start function and
// _initialize only: a looping aios_register or aios_abi_version ran on to
// runtimes.wasm.load_timeout (10 s by default) and the load then said the
// guest ran past it (TestWasmtimeLoadCancelStopsRegister: the same there).
func TestLoadCancelStopsRegister(t *testing.T) {
	checkLoadCancelStops(t, func(t *testing.T, cfg Config) abi.Loader { return newTestLoader(t, cfg, nil) })
}

func checkLoadCancelStops(t *testing.T, loader func(*testing.T, Config) abi.Loader) {
	const loadTimeout = 20 * time.Second
	for _, step := range []string{exportRegister, exportVersion} {
		t.Run(step, func(t *testing.T) {
			l := loader(t, Config{LoadTimeout: loadTimeout})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Cancelled once the guest is in the step (it logs, then
			// loops), not after a time a slow compilation may outlast.
			logger := slog.New(cancelOn{"looping", cancel})
			start := time.Now()
			p, err := l.Load(ctx, abi.Source{Path: buildWAT(t, loopExportWAT(step)), Logger: logger})
			took := time.Since(start)
			if err == nil {
				p.Close()
				t.Fatalf("a module whose %s loops loaded", step)
			}
			if abi.CodeOf(err) != abi.Cancelled || took >= loadTimeout/2 || !strings.Contains(err.Error(), step) {
				t.Errorf("load cancelled in %s: %v (after %v), want Cancelled naming it well before load_timeout (%v)", step, err, took, loadTimeout)
			}
		})
	}
}

// cancelOn is a log handler that calls cancel when a record's message is msg.
type cancelOn struct {
	msg    string
	cancel context.CancelFunc
}

func (h cancelOn) Enabled(context.Context, slog.Level) bool { return true }
func (h cancelOn) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.cancel()
	}
	return nil
}
func (h cancelOn) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h cancelOn) WithGroup(string) slog.Handler      { return h }
