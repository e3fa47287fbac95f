package instrument

import "fmt"

// Measure: what a compiler's time on a module grows with.
//
// wazero's optimizing compiler (and so the host's load of a plugin) takes
// time that grows with the square of the number of control-flow nodes in
// one function: measured here, one function of 10 000 sequential `if`s or
// `loop`s compiles in 1.4 s, of 100 000 nested blocks in 50 s, while the
// same nodes spread over 100 functions compile in 40 ms. A compilation
// cannot be interrupted, so a 400 KB file could hold a loader for minutes.
// Measure counts those nodes per function, without compiling, so that the
// host can compile a module that could take long in a process it can kill
// (runtimes/wasm/precompile).

// Cost is Measure's account of a module's function bodies.
type Cost struct {
	// Functions is the number of functions the module defines.
	Functions int
	// MaxNodes is the number of control-flow nodes of the function that
	// has the most, and MaxFunc that function's index in the module's
	// function index space (imported functions first).
	MaxNodes int
	MaxFunc  int
	// Work is the sum, over the defined functions, of the square of their
	// control-flow nodes: what a compile time that grows with the square of
	// a function's nodes grows with.
	Work uint64
	// CodeBytes is the size of the code section.
	CodeBytes int
}

// Measure reads the function bodies of the core module bin and counts
// their control-flow nodes: block, loop, if, else, try, try_table, br_if,
// and each target of a br_table. It does not validate the module; an error
// says it could not be read.
func Measure(bin []byte) (Cost, error) {
	var c Cost
	if len(bin) < 8 {
		return c, fmt.Errorf("%w: %d bytes is no module", ErrNotInstrumentable, len(bin))
	}
	r := &wreader{b: bin, off: 8}
	imported := 0
	for r.off < len(bin) && r.err == nil {
		id := r.byte()
		n := int(r.u32())
		start := r.off
		r.skip(n)
		if r.err != nil {
			break
		}
		sr := &wreader{b: bin[:r.off], off: start}
		switch id {
		case 2:
			funcs, _ := sr.imports()
			imported = int(funcs)
		case 10:
			c.CodeBytes = n
			nf := int(sr.u32())
			for i := 0; i < nf && sr.err == nil; i++ {
				size := int(sr.u32())
				bstart := sr.off
				sr.skip(size)
				if sr.err != nil {
					break
				}
				nodes, err := countNodes(bin[bstart:sr.off])
				if err != nil {
					return c, fmt.Errorf("function %d: %w", imported+i, err)
				}
				c.Functions++
				c.Work += uint64(nodes) * uint64(nodes)
				if nodes > c.MaxNodes {
					c.MaxNodes, c.MaxFunc = nodes, imported+i
				}
			}
		}
		if sr.err == nil && (id == 2 || id == 10) && sr.off != r.off {
			sr.fail("%d trailing bytes in section %d", r.off-sr.off, id)
		}
		if sr.err != nil {
			return c, sr.err
		}
	}
	return c, r.err
}

// countNodes counts the control-flow nodes of one function body.
func countNodes(b []byte) (int, error) {
	r := &wreader{b: b}
	for n := r.u32(); n > 0 && r.err == nil; n-- { // locals
		r.u32()
		r.valType()
	}
	nodes := 0
	for r.off < len(b) && r.err == nil {
		op := r.byte()
		switch op {
		case 0x02, 0x03, 0x04, 0x05, 0x06, 0x0d, 0x1f: // block, loop, if, else, try, br_if, try_table
			nodes++
			r.operands(op)
		case 0x0e: // br_table
			k := r.u32()
			nodes += int(k) + 1
			for ; k > 0 && r.err == nil; k-- {
				r.u32()
			}
			r.u32()
		default:
			r.operands(op)
		}
	}
	return nodes, r.err
}
