package component

import (
	"context"
	"strings"
	"testing"
)

// startTrapComponent exports run: func() -> u32 (core func 1, 7) from a
// core module whose start function (func 0) traps with unreachable.
func startTrapComponent() []byte {
	coreSec := func(id byte, b []byte) []byte { return append(append([]byte{id}, leb(len(b))...), b...) }
	core := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	core = append(core, coreSec(1, []byte{2, 0x60, 0, 0, 0x60, 0, 1, 0x7f})...)
	core = append(core, coreSec(3, []byte{2, 0, 1})...)
	core = append(core, coreSec(7, cat([]byte{1}, str("f"), []byte{0x00, 0x01}))...)
	core = append(core, coreSec(8, []byte{0})...)
	core = append(core, coreSec(10, []byte{2, 3, 0x00, 0x00, 0x0b, 4, 0x00, 0x41, 0x07, 0x0b})...)
	return comp(
		sec(7, []byte{0x40, 0x00, 0x00, 0x79}),
		sec(1, core),
		sec(2, []byte{0x00, 0x00, 0x00}),
		sec(6, cat([]byte{0x00, 0x00, 0x01, 0x00}, str("f"))),
		sec(8, []byte{0x00, 0x00, 0x00, 0x00, 0x00}),
		sec(11, cat([]byte{0x00}, str("run"), []byte{0x01, 0x00, 0x00})),
	)
}

// TestStartTrapOneLine (found by p164): a component whose core start
// function trapped failed its load in several lines, wazero's "start
// function[1] export[\"f\"] failed: wasm error: unreachable" followed by
// "wasm stack trace:" and a frame, where the wasmtime engine says one
// line (and every other load error is one); and it named the start
// function by its index in the rewritten module (one past) with the
// export of that index in the module as written, "f", not the start
// function. The load error is one line: the component, the core instance,
// the start function by its index as written (0), and the trap.
func TestStartTrapOneLine(t *testing.T) {
	p, err := New(context.Background(), startTrapComponent(), "starttrap.wasm", "", Options{})
	if err == nil {
		p.Close()
		t.Fatal("a component whose start function traps loaded")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "starttrap.wasm") || !strings.Contains(msg, "core instance 0") ||
		!strings.HasSuffix(msg, "start function[0] failed: wasm error: unreachable") {
		t.Fatalf("load error %q, want one line naming starttrap.wasm, core instance 0 and ending %q", msg, "start function[0] failed: wasm error: unreachable")
	}
}
