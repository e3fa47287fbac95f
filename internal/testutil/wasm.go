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
		return append(AppendULEB(append(out, id), uint64(len(payload))), payload...)
	}
	out := []byte("\x00asm\x01\x00\x00\x00")
	out = sec(out, 1, []byte{1, 0x60, 1, 0x7f, 0})
	funcs := AppendULEB(nil, uint64(len(bodies)))
	exports := AppendULEB(nil, uint64(len(bodies)))
	code := AppendULEB(nil, uint64(len(bodies)))
	for i, b := range bodies {
		funcs = append(funcs, 0)
		name := "f" + strconv.Itoa(i)
		exports = append(AppendULEB(exports, uint64(len(name))), name...)
		exports = AppendULEB(append(exports, 0), uint64(i))
		decl := []byte{0}
		if locals > 0 {
			decl = append(AppendULEB([]byte{1}, uint64(locals)), 0x7f)
		}
		code = AppendULEB(code, uint64(len(decl)+len(b)+1))
		code = append(append(append(code, decl...), b...), 0x0b)
	}
	out = sec(out, 3, funcs)
	out = sec(out, 7, exports)
	return sec(out, 10, code)
}

// Repeat returns n copies of the instruction bytes unit.
func Repeat(n int, unit ...byte) []byte { return bytes.Repeat(unit, n) }

// AppendULEB appends v as an unsigned LEB128 (WebAssembly's integers).
func AppendULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		if v >>= 7; v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
