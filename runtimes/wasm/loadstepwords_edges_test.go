package wasm

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestLoadStepTimeoutSaysItOnce: a load step past load_timeout was told
// as a trap and its step named twice, "aios_register trapped: aios_register
// did not finish within runtimes.wasm.load_timeout …", "aios_abi_version
// failed: aios_abi_version did not finish …", and on wazero "_initialize:
// _initialize did not finish …": the guest did not trap, it ran too long.
// The error says "<step> did not finish within …" once, on both engines.
func TestLoadStepTimeoutSaysItOnce(t *testing.T) {
	loop := `(loop $l (br $l))`
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			for _, c := range []struct{ step, extra, reg string }{
				{"_initialize", `(func (export "_initialize") ` + loop + `)`, ""},
				{"aios_abi_version", `(func (export "aios_abi_version") (result i32) ` + loop + ` (i32.const 1))`, ""},
				{"aios_register", "", loop},
			} {
				g := newEdgeGuest(edgeReg)
				g.call = "(i64.const 0)"
				g.extra = c.extra
				src := g.wat()
				if c.reg != "" {
					src = strings.Replace(src, `(func (export "aios_register") (result i64) (i64.const`, `(func (export "aios_register") (result i64) `+c.reg+` (i64.const`, 1)
				}
				p, err := e.load(t, Config{PoolSize: 1, LoadTimeout: 300e6}, abi.Source{Path: buildWAT(t, src)})
				if err == nil {
					p.Close()
					t.Fatalf("%s loops: loaded", c.step)
				}
				msg := err.Error()
				want := c.step + " did not finish within runtimes.wasm.load_timeout (300ms)"
				if !strings.Contains(msg, want) || strings.Count(msg, c.step) != 1 || strings.Contains(msg, "trapped") || strings.Contains(msg, "failed") {
					t.Errorf("%s loops: %q; want it to say %q once, and no trap", c.step, msg, want)
				}
			}
		})
	}
}
