package instrument

import "fmt"

// Measure: what a compiler's time on a module grows with.
//
// wazero's optimizing compiler (and so the host's load of a plugin) takes
// time that grows, per function, with the number of control-flow nodes
// times the number of nodes plus locals. Measured here:
//
//   - one function of 10 000 sequential `if`s or `loop`s compiles in 1.4 s,
//     of 100 000 nested blocks in 50 s, while the same nodes spread over
//     100 functions compile in 40 ms;
//   - one function of 100 000 locals and 4 000 loops (a 1 MB file) in 13 s,
//     40 000 locals and 1 000 loops in 0.8 s.
//
// A compilation cannot be interrupted, so a file of a few hundred KB could
// hold a loader for minutes. Measure counts nodes and locals per function,
// without compiling, so that the host can compile a module that could take
// long in a process it can kill (runtimes/wasm/precompile).

// Cost is Measure's account of a module's function bodies.
type Cost struct {
	// Functions is the number of functions the module defines.
	Functions int
	// Work is the sum, over the defined functions, of nodes × (nodes +
	// locals): what the compile time grows with.
	Work uint64
	// MaxFunc is the function with the most Work, by its index in the
	// module's function index space (imported functions first), and
	// MaxNodes and MaxLocals are its control-flow nodes and its locals
	// (parameters included).
	MaxFunc   int
	MaxNodes  int
	MaxLocals uint64
	// CodeBytes is the size of the code section.
	CodeBytes int
}

// Measure reads the function bodies of the core module bin and counts
// their control-flow nodes (block, loop, if, else, try, try_table, br_if,
// and each target of a br_table) and their locals. It does not validate
// the module; an error says it could not be read.
func Measure(bin []byte) (Cost, error) {
	var c Cost
	imported := 0
	var typeParams []uint64 // parameters of each function type
	var funcParams []uint64 // parameters of each defined function
	var maxWork uint64
	var ferr error // a function body countNodes could not read
	err := sections(bin, func(id byte, sr *wreader) bool {
		n := len(sr.b) - sr.off // the payload's size
		switch id {
		case 1:
			for k := sr.u32(); k > 0 && sr.err == nil; k-- {
				if form := sr.byte(); form != 0x60 {
					sr.fail("type form 0x%02x (GC proposal) is not supported", form)
					break
				}
				np := sr.u32()
				for i := np; i > 0 && sr.err == nil; i-- {
					sr.valType()
				}
				for i := sr.u32(); i > 0 && sr.err == nil; i-- {
					sr.valType()
				}
				typeParams = append(typeParams, uint64(np))
			}
		case 2:
			funcs, _ := sr.imports()
			imported = int(funcs)
		case 3:
			for k := sr.u32(); k > 0 && sr.err == nil; k-- {
				var np uint64
				if t := sr.u32(); int64(t) < int64(len(typeParams)) {
					np = typeParams[t]
				}
				funcParams = append(funcParams, np)
			}
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
				nodes, locals, err := countNodes(bin[bstart:sr.off])
				if err != nil {
					ferr = fmt.Errorf("function %d: %w", imported+i, err)
					return false
				}
				if i < len(funcParams) {
					locals += funcParams[i]
				}
				c.Functions++
				w := uint64(nodes) * (uint64(nodes) + locals)
				c.Work += w
				if w > maxWork || c.Functions == 1 {
					maxWork = w
					c.MaxFunc, c.MaxNodes, c.MaxLocals = imported+i, nodes, locals
				}
			}
		}
		if sr.err == nil && (id == 1 || id == 2 || id == 3 || id == 10) && sr.off != len(sr.b) {
			sr.fail("%d trailing bytes in section %d", len(sr.b)-sr.off, id)
		}
		return true
	})
	if ferr != nil {
		return c, ferr
	}
	return c, err
}

// countNodes counts the control-flow nodes and the declared locals of one
// function body.
func countNodes(b []byte) (nodes int, locals uint64, err error) {
	r := &wreader{b: b}
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		locals += uint64(r.u32())
		r.valType()
	}
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
	return nodes, locals, r.err
}
