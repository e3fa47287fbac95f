package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestInspectShowsGuestLogAtLoad: `inspect` of a core module discarded
// everything the guest said while it loaded, its aios.log lines and its
// stdout and stderr, at any --log-level, so a C guest whose aios_register
// logs why it is about to fail ("config: missing table") and then returns
// a broken ToolRegister showed only the host's "malformed ToolRegister";
// `run` and `list` log those lines, and inspect of a .js or .py file shows
// what its script writes. The guest's lines go to inspect's log (stderr),
// at its level: an error-level aios.log is shown by default.
func TestInspectShowsGuestLogAtLoad(t *testing.T) {
	const why = "probe-guest: config table missing"
	wat := fmt.Sprintf(`(module
  (import "aios" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 1024) %q)
  (data (i32.const 2048) "{\"format\":1,")
  (func (export "aios_alloc") (param i32) (result i32) (i32.const 16384))
  (func (export "aios_register") (result i64)
    (call $log (i32.const 3) (i32.const 1024) (i32.const %d))
    (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`, why, len(why), uint64(2048)<<32|12)
	mod := buildWATModule(t, "g", wat)
	e := newEnv(t)
	code, _, errs := e.run("", "inspect", mod)
	if code != exitFail || !strings.Contains(errs, "malformed ToolRegister") || !strings.Contains(errs, why) {
		t.Errorf("inspect: exit %d, stderr:\n%s\nwant the malformed ToolRegister and the guest's own line %q", code, errs, why)
	}
}
