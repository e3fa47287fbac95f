package testutil

import (
	"bytes"
	"strconv"
)

// CoreModule assembles a WebAssembly core module with one function per
// body, each of type (i32) -> () with no locals beyond its parameter
// (local 0), exported as "f0", "f1", …. A body is the function's
// instructions without the final `end`.
func CoreModule(bodies ...[]byte) []byte { return coreModule(0, bodies) }

// CoreModuleLocals is CoreModule with locals more i32 locals (indices 1 to
// locals) declared in every function.
func CoreModuleLocals(locals int, bodies ...[]byte) []byte { return coreModule(locals, bodies) }

func coreModule(locals int, bodies [][]byte) []byte {
	sec := func(out []byte, id byte, payload []byte) []byte {
		return append(appendULEB(append(out, id), uint64(len(payload))), payload...)
	}
	out := []byte("\x00asm\x01\x00\x00\x00")
	out = sec(out, 1, []byte{1, 0x60, 1, 0x7f, 0})
	funcs := appendULEB(nil, uint64(len(bodies)))
	exports := appendULEB(nil, uint64(len(bodies)))
	code := appendULEB(nil, uint64(len(bodies)))
	for i, b := range bodies {
		funcs = append(funcs, 0)
		name := "f" + strconv.Itoa(i)
		exports = append(appendULEB(exports, uint64(len(name))), name...)
		exports = appendULEB(append(exports, 0), uint64(i))
		decl := []byte{0}
		if locals > 0 {
			decl = append(appendULEB([]byte{1}, uint64(locals)), 0x7f)
		}
		code = appendULEB(code, uint64(len(decl)+len(b)+1))
		code = append(append(append(code, decl...), b...), 0x0b)
	}
	out = sec(out, 3, funcs)
	out = sec(out, 7, exports)
	return sec(out, 10, code)
}

// Repeat returns n copies of the instruction bytes unit.
func Repeat(n int, unit ...byte) []byte { return bytes.Repeat(unit, n) }

func appendULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		if v >>= 7; v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
