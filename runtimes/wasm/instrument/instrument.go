// Package instrument rewrites a WebAssembly core module so that a host can
// stop it cheaply: a loop-iteration counter and a host import at loop
// headers, instead of wazero's WithCloseOnContextDone (a goroutine per guest
// call and slow checks). runtimes/wasm (core modules) and component (the
// core modules inside a component) both use it.
//
// instrument imports only the standard library; it must never import
// wazero, host, a runtime or cmd.
//
// wazero can stop a running guest only from checks it compiles into the code
// when the runtime is configured WithCloseOnContextDone. Measured here, those
// checks (a call out to Go at every loop header and function entry) made the
// Go conformance guest's echo 3.7 times slower (4.5 µs → 16.6 µs), and the
// option also starts a goroutine per call (≈0.65 µs, 3 allocations).
//
// Instead the loader rewrites the module once at load time: it appends a
// mutable i32 global $tick (exported as "aios_tick") and a host import
// aios.tick () -> i32, and inserts at the top of every loop body, and at
// the entry of every function that may call a function of the module
// (directly, through a table or a reference, or as a tail call),
//
//	global.get $tick  i32.const 1  i32.sub  global.set $tick
//	global.get $tick  i32.const 0  i32.le_s
//	if  call $aios.tick  global.set $tick  end
//
// A loop iteration or such a call costs a decrement and a branch; every
// 65536 of them the guest calls into Go, which keeps a looping guest
// preemptible (Go's stop-the-world phases cannot interrupt native code that
// never returns to Go: without this a runaway loop would stall the garbage
// collector and so the whole host). To stop a guest, the watchdog sets
// $tick to 0; at its next loop header or call the guest calls aios.tick,
// which sees the call was interrupted and traps, and the call reports
// Timeout. Code that runs long either loops or calls functions of the
// module without end: straight-line code cannot, and a recursion without a
// loop, even one never deeper than a few frames (f calling f twice, n deep,
// makes 2^n calls), passes a function entry each time. Leaf functions and
// those that call imports only are left as they are.
//
// Adding an import shifts the index of every function defined by the
// module, so calls, ref.func, exports, the start function, element segments
// and global initializers are renumbered; custom sections (names, DWARF)
// would be stale and are dropped.
//
// The rewrite understands the core instruction set with sign extension,
// saturating conversion, bulk memory, reference types, SIMD, threads, tail
// calls and exceptions. A module it cannot read (the GC proposal, a
// malformed body) is left alone and runs on a runtime with wazero's own
// checks: slower, equally safe.
package instrument

import (
	"errors"
	"fmt"
)

// The names the instrumentation adds.
const (
	// TickExport names the exported mutable i32 global $tick. Setting it to
	// 0 makes the guest call the tick import at its next loop header.
	TickExport = "aios_tick"
	// TickModule and TickImport name the host import () -> i32 the guest
	// calls when $tick runs out. The host traps there to stop the guest, or
	// returns the new budget (normally Budget).
	TickModule = "aios"
	TickImport = "tick"
	// Budget is the number of loop iterations between calls into the host.
	Budget = 1 << 16
)

// ErrNotInstrumentable is wrapped by Module's error for a module the rewrite
// cannot read; the caller falls back to wazero's own termination checks.
var ErrNotInstrumentable = errors.New("not instrumentable")

// MaxTableElements bounds every table of a rewritten module: a table's
// maximum is lowered to it (table.grow past it fails, as memory.grow past
// the memory limit does). Tables are host memory the memory limit does not
// cover: a guest growing a funcref table by 200 million elements took
// 1.6 GB of the host.
const MaxTableElements = 1 << 20

// ErrTableLimit is wrapped by Module's error for a module whose table
// starts above MaxTableElements: the caller refuses it (running it
// unrewritten would not bound it either).
var ErrTableLimit = errors.New("table above the element limit")

// ErrReservedExport is wrapped by Module's error for a module that
// exports TickExport itself: its rewrite would export the name twice and
// not compile, and run unrewritten a guest would choose wazero's checks,
// which are at loop headers only. The caller refuses it.
var ErrReservedExport = errors.New("export name reserved by the host")

type wreader struct {
	b   []byte
	off int
	err error
}

func (r *wreader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: byte %d: %s", ErrNotInstrumentable, r.off, fmt.Sprintf(format, args...))
	}
}

// end fails r unless it read its section's payload to the end: the
// rewrite appends entries to the type, import, global and export
// sections and re-encodes the entries of others (CapTables the table
// section's), so bytes after the last
// entry would be read as part of an added one, or dropped (the module
// accepted once rewritten, though the engine refuses it as written).
func (r *wreader) end(section string) {
	if r.err == nil && r.off != len(r.b) {
		r.fail("trailing bytes in the %s section (%d after its last entry)", section, len(r.b)-r.off)
	}
}

func (r *wreader) byte() byte {
	if r.err != nil || r.off >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

// u64 reads an unsigned or signed LEB128 of at most max bytes, returning
// its unsigned value (enough to skip or count).
func (r *wreader) leb(max int) uint64 {
	var v uint64
	for i := 0; i < max; i++ {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if i < 10 {
			v |= uint64(c&0x7f) << (7 * i)
		}
		if c&0x80 == 0 {
			return v
		}
	}
	r.fail("LEB128 longer than %d bytes", max)
	return 0
}

func (r *wreader) u32() uint32 { return uint32(r.leb(5)) }

// imports reads an import section's payload and counts the imported
// functions and globals.
func (r *wreader) imports() (funcs uint32, globals int) {
	r.eachImport(func(_, _ []byte, kind byte) {
		switch kind {
		case KindFunc:
			funcs++
		case KindGlobal:
			globals++
		}
	})
	return funcs, globals
}

// eachImport reads an import section's payload, calling fn with each
// import's module, name and kind.
func (r *wreader) eachImport(fn func(module, name []byte, kind byte)) {
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		module := r.bytes()
		name := r.bytes()
		kind := r.byte()
		switch kind {
		case KindFunc:
			r.u32()
		case KindTable:
			r.valType()
			r.limits()
		case KindMemory:
			r.limits()
		case KindGlobal:
			r.valType()
			r.byte()
		case KindTag:
			r.byte()
			r.u32()
		default:
			r.fail("unknown import kind 0x%02x", kind)
		}
		if r.err == nil {
			fn(module, name, kind)
		}
	}
}

// bytes reads a length-prefixed byte string (a name).
func (r *wreader) bytes() []byte {
	n := int(r.u32())
	start := r.off
	r.skip(n)
	if r.err != nil {
		return nil
	}
	return r.b[start:r.off]
}

func (r *wreader) skip(n int) {
	if r.err != nil || n < 0 || n > len(r.b)-r.off {
		r.fail("length %d past the end", n)
		return
	}
	r.off += n
}

func appendLEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// heapOrValType skips a value type, including (ref null? ht).
func (r *wreader) valType() {
	switch c := r.byte(); c {
	case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f, 0x69, 0x6e, 0x6d, 0x6c, 0x6b, 0x6a, 0x71, 0x72, 0x73, 0x74:
	case 0x63, 0x64:
		r.heapType()
	default:
		r.fail("unknown value type 0x%02x", c)
	}
}

func (r *wreader) heapType() { r.leb(5) } // s33: abstract types are one byte, indices LEB

func (r *wreader) blockType() {
	if r.off >= len(r.b) {
		r.fail("unexpected end")
		return
	}
	switch c := r.b[r.off]; c {
	case 0x40, 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
		r.off++
	case 0x63, 0x64:
		r.off++
		r.heapType()
	default:
		r.leb(5) // s33 type index
	}
}

func (r *wreader) memarg() {
	align := r.u32()
	if align&0x40 != 0 {
		r.u32() // memory index (multi-memory)
	}
	r.leb(10) // offset (u64 for memory64)
}

func (r *wreader) limits() {
	flags := r.byte()
	r.leb(10)
	if flags&1 != 0 {
		r.leb(10)
	}
}

// plan is what the rewrite needs to know about the module.
type plan struct {
	nImportFuncs uint32
	tickGlobal   uint64 // index of the appended $tick global
	tickType     uint32 // type index of () -> i32
	addType      bool   // the type must be appended
}

// fn renumbers a function index: the new import goes after the existing
// imported functions.
func (pl *plan) fn(idx uint32) uint32 {
	if idx >= pl.nImportFuncs {
		return idx + 1
	}
	return idx
}

// sectionRank orders section ids as the binary format requires.
func sectionRank(id byte) int {
	switch id {
	case 13: // tag
		return 55
	case 12: // data count
		return 95
	}
	return int(id) * 10
}

// Module returns bin with the tick global, the aios.tick import and the
// loop checks added. bin must be a valid core module (a malformed one may be
// refused here or by the engine's compiler afterwards).
func Module(bin []byte) ([]byte, error) {
	if len(bin) < 8 {
		return nil, fmt.Errorf("%w: %d bytes is no module", ErrNotInstrumentable, len(bin))
	}
	r := &wreader{b: bin, off: 8}
	type section struct {
		id         byte
		start, end int // payload
	}
	var secs []section
	for r.off < len(bin) && r.err == nil {
		id := r.byte()
		n := int(r.u32())
		start := r.off
		r.skip(n)
		secs = append(secs, section{id, start, r.off})
	}
	if r.err != nil {
		return nil, r.err
	}
	pl := &plan{}
	nTypes, importedGlobals, definedGlobals := uint32(0), 0, 0
	hasType := false
	for _, s := range secs {
		sr := &wreader{b: bin[:s.end], off: s.start}
		switch s.id {
		case 1:
			hasType = true
			nTypes = sr.u32()
			found := false
			for i := uint32(0); i < nTypes && sr.err == nil; i++ {
				if form := sr.byte(); form != 0x60 {
					sr.fail("type form 0x%02x (GC proposal) is not supported", form)
					break
				}
				p0 := sr.off
				np := sr.u32()
				for k := np; k > 0 && sr.err == nil; k-- {
					sr.valType()
				}
				nr := sr.u32()
				r0 := sr.off
				for k := nr; k > 0 && sr.err == nil; k-- {
					sr.valType()
				}
				if !found && np == 0 && nr == 1 && sr.off == r0+1 && bin[r0] == 0x7f && p0 < r0 {
					pl.tickType, found = i, true
				}
			}
			if !found {
				pl.tickType, pl.addType = nTypes, true
			}
			sr.end("type")
		case 2:
			pl.nImportFuncs, importedGlobals = sr.imports()
			sr.end("import")
		case 6:
			definedGlobals = int(sr.u32())
		}
		if sr.err != nil {
			return nil, sr.err
		}
	}
	if !hasType {
		pl.tickType, pl.addType = 0, true
	}
	pl.tickGlobal = uint64(importedGlobals + definedGlobals)

	out := make([]byte, 0, len(bin)+len(bin)/8+64)
	out = append(out, bin[:8]...)
	emit := func(id byte, payload []byte) {
		out = append(out, id)
		out = appendLEB(out, uint64(len(payload)))
		out = append(out, payload...)
	}
	tickImportEntry := func() []byte {
		e := appendLEB(nil, uint64(len(TickModule)))
		e = append(e, TickModule...)
		e = appendLEB(e, uint64(len(TickImport)))
		e = append(e, TickImport...)
		e = append(e, 0x00)
		return appendLEB(e, uint64(pl.tickType))
	}
	newGlobal := appendLEB([]byte{0x7f, 0x01, 0x41}, Budget) // mut i32 = budget
	newGlobal = append(newGlobal, 0x0b)
	emitted := map[byte]bool{}
	// ensure emits the sections this rewrite creates when the module has
	// none, just before the first section that must follow them.
	ensure := func(next byte) {
		if !emitted[1] && sectionRank(next) > sectionRank(1) {
			emitted[1] = true
			emit(1, []byte{0x01, 0x60, 0x00, 0x01, 0x7f})
		}
		if !emitted[2] && sectionRank(next) > sectionRank(2) {
			emitted[2] = true
			emit(2, append(appendLEB(nil, 1), tickImportEntry()...))
		}
		if !emitted[6] && sectionRank(next) > sectionRank(6) {
			emitted[6] = true
			emit(6, append(appendLEB(nil, 1), newGlobal...))
		}
		if !emitted[7] && sectionRank(next) > sectionRank(7) {
			emitted[7] = true
			p, _ := rewriteExports([]byte{0x00}, pl)
			emit(7, p)
		}
	}
	var err error
	for _, s := range secs {
		payload := bin[s.start:s.end]
		if s.id == 0 {
			continue // custom sections: names and DWARF would be stale
		}
		ensure(s.id)
		var p []byte
		switch s.id {
		case 1:
			p = payload
			if pl.addType {
				p = appendLEB(nil, uint64(nTypes)+1)
				p = append(p, payload[lebLen(payload):]...)
				p = append(p, 0x60, 0x00, 0x01, 0x7f)
			}
		case 2:
			sr := &wreader{b: payload}
			n := sr.u32()
			p = appendLEB(nil, uint64(n)+1)
			p = append(p, payload[sr.off:]...)
			p = append(p, tickImportEntry()...)
		case 6:
			p, err = rewriteGlobals(payload, pl)
			p = append(p, newGlobal...)
		case 7:
			p, err = rewriteExports(payload, pl)
		case 8:
			sr := &wreader{b: payload}
			p = appendLEB(nil, uint64(pl.fn(sr.u32())))
			err = sr.err
		case 4:
			p, err = capTables(payload)
		case 9:
			p, err = rewriteElems(payload, pl)
		case 10:
			p, err = instrumentCode(payload, pl)
		default:
			p = payload
		}
		if err != nil {
			return nil, err
		}
		emitted[s.id] = true
		emit(s.id, p)
	}
	ensure(11)
	return out, nil
}

// capTables rewrites a table section so that its tables hold at most
// about 2 × MaxTableElements elements in all: each may grow to its share
// of MaxTableElements (or stays at its minimum when that is larger); the
// minimums together may not exceed MaxTableElements. Limits that are
// invalid (a maximum below the minimum) are kept, so that validation still
// refuses them.
func capTables(payload []byte) ([]byte, error) {
	type table struct {
		rt, flag byte
		lo, hi   uint32
	}
	r := &wreader{b: payload}
	n := r.u32()
	var tables []table
	var sumLo uint64
	for i := uint32(0); i < n && r.err == nil; i++ {
		var t table
		t.rt = r.byte()
		if t.rt != 0x70 && t.rt != 0x6f {
			r.fail("table %d: element type 0x%02x is not supported", i, t.rt)
			break
		}
		t.flag = r.byte()
		if t.flag > 1 {
			r.fail("table %d: limits flag 0x%02x is not supported", i, t.flag)
			break
		}
		t.lo = r.u32()
		if t.flag == 1 {
			t.hi = r.u32()
		}
		sumLo += uint64(t.lo)
		tables = append(tables, t)
	}
	r.end("table")
	if r.err != nil {
		return nil, r.err
	}
	if sumLo > MaxTableElements {
		return nil, fmt.Errorf("%w: the module's %d tables start with %d elements in all; at most %d are allowed", ErrTableLimit, n, sumLo, MaxTableElements)
	}
	share := uint32(MaxTableElements / max(uint64(n), 1))
	out := appendLEB(nil, uint64(n))
	for _, t := range tables {
		hi := max(t.lo, share)
		switch {
		case t.flag == 1 && t.hi < t.lo:
			hi = t.hi // invalid: left for validation to refuse
		case t.flag == 1:
			hi = min(t.hi, hi)
		}
		out = append(out, t.rt, 0x01)
		out = appendLEB(out, uint64(t.lo))
		out = appendLEB(out, uint64(hi))
	}
	return out, nil
}

// CapTables returns bin with its tables bounded as Module bounds them (see
// MaxTableElements), everything else unchanged: for a module that runs
// without the rest of the rewrite (wazero's own interruption checks, the
// wasmtime engine). A module without tables is returned as it is.
func CapTables(bin []byte) ([]byte, error) {
	if len(bin) < 8 {
		return nil, fmt.Errorf("%w: %d bytes is no module", ErrNotInstrumentable, len(bin))
	}
	r := &wreader{b: bin, off: 8}
	out := append([]byte(nil), bin[:8]...)
	found := false
	for r.off < len(bin) && r.err == nil {
		start := r.off
		id := r.byte()
		n := int(r.u32())
		pstart := r.off
		r.skip(n)
		if r.err != nil {
			break
		}
		if id != 4 {
			out = append(out, bin[start:r.off]...)
			continue
		}
		found = true
		p, err := capTables(bin[pstart:r.off])
		if err != nil {
			return nil, err
		}
		out = append(out, id)
		out = appendLEB(out, uint64(len(p)))
		out = append(out, p...)
	}
	if r.err != nil {
		return nil, r.err
	}
	if !found {
		return bin, nil
	}
	return out, nil
}

func lebLen(b []byte) int {
	for i, c := range b {
		if c&0x80 == 0 {
			return i + 1
		}
	}
	return len(b)
}

// constExpr copies a constant expression, renumbering ref.func.
func constExpr(r *wreader, pl *plan, out []byte) []byte {
	for r.err == nil {
		start := r.off
		op := r.byte()
		switch op {
		case 0x0b:
			return append(out, op)
		case 0xd2:
			out = appendLEB(append(out, op), uint64(pl.fn(r.u32())))
			continue
		}
		r.constImmediate(op)
		out = append(out, r.b[start:r.off]...)
	}
	return out
}

// constImmediate reads the immediate of op, an instruction of a constant
// expression other than end (i32/i64/f32/f64.const, global.get,
// ref.null, ref.func, v128.const, and the extended-const arithmetic,
// which has none), and fails on any other instruction.
func (r *wreader) constImmediate(op byte) {
	switch op {
	case 0x41:
		r.leb(5)
	case 0x42:
		r.leb(10)
	case 0x43:
		r.skip(4)
	case 0x44:
		r.skip(8)
	case 0x23, 0xd2:
		r.u32()
	case 0xd0:
		r.heapType()
	case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e:
	case 0xfd: // v128.const
		if r.u32() != 12 {
			r.fail("unsupported constant instruction")
		}
		r.skip(16)
	default:
		r.fail("unsupported constant instruction 0x%02x", op)
	}
}

func rewriteGlobals(payload []byte, pl *plan) ([]byte, error) {
	r := &wreader{b: payload}
	n := r.u32()
	out := appendLEB(nil, uint64(n)+1)
	for i := uint32(0); i < n && r.err == nil; i++ {
		start := r.off
		r.valType()
		r.byte()
		out = append(out, payload[start:r.off]...)
		out = constExpr(r, pl, out)
	}
	r.end("global")
	return out, r.err
}

func rewriteExports(payload []byte, pl *plan) ([]byte, error) {
	r := &wreader{b: payload}
	n := r.u32()
	out := appendLEB(nil, uint64(n)+1)
	for i := uint32(0); i < n && r.err == nil; i++ {
		start := r.off
		nlen := int(r.u32())
		r.skip(nlen)
		if r.err == nil && string(payload[r.off-nlen:r.off]) == TickExport {
			return nil, fmt.Errorf("%w: the module exports %q, a name the host reserves for the export its instrumentation adds (the $tick global that lets it stop the guest); rename it", ErrReservedExport, TickExport)
		}
		kind := r.byte()
		out = append(out, payload[start:r.off]...)
		idx := r.u32()
		if kind == 0x00 {
			idx = pl.fn(idx)
		}
		out = appendLEB(out, uint64(idx))
	}
	r.end("export")
	out = appendLEB(out, uint64(len(TickExport)))
	out = append(out, TickExport...)
	out = append(out, 0x03)
	return appendLEB(out, pl.tickGlobal), r.err
}

func rewriteElems(payload []byte, pl *plan) ([]byte, error) {
	r := &wreader{b: payload}
	n := r.u32()
	out := appendLEB(nil, uint64(n))
	for i := uint32(0); i < n && r.err == nil; i++ {
		flags := r.u32()
		out = appendLEB(out, uint64(flags))
		if flags > 7 {
			return nil, fmt.Errorf("%w: element segment kind %d", ErrNotInstrumentable, flags)
		}
		if flags&2 != 0 && flags&1 == 0 { // explicit table index
			out = appendLEB(out, uint64(r.u32()))
		}
		if flags&1 == 0 { // active: offset expression
			out = constExpr(r, pl, out)
		}
		if flags&3 != 0 { // elemkind or reftype
			start := r.off
			if flags&4 != 0 {
				r.valType()
			} else {
				r.byte()
			}
			out = append(out, payload[start:r.off]...)
		}
		k := r.u32()
		out = appendLEB(out, uint64(k))
		for ; k > 0 && r.err == nil; k-- {
			if flags&4 != 0 {
				out = constExpr(r, pl, out)
			} else {
				out = appendLEB(out, uint64(pl.fn(r.u32())))
			}
		}
	}
	r.end("element")
	return out, r.err
}

// instrumentCode rewrites the code section payload.
func instrumentCode(payload []byte, pl *plan) ([]byte, error) {
	check := []byte{}
	g := func(op byte) { check = appendLEB(append(check, op), pl.tickGlobal) }
	g(0x23)
	check = append(check, 0x41, 0x01, 0x6b) // i32.const 1, i32.sub
	g(0x24)
	g(0x23)
	check = append(check, 0x41, 0x00, 0x4c, 0x04, 0x40) // i32.const 0, i32.le_s, if
	check = appendLEB(append(check, 0x10), uint64(pl.nImportFuncs))
	g(0x24)
	check = append(check, 0x0b)

	r := &wreader{b: payload}
	n := r.u32()
	out := appendLEB(make([]byte, 0, len(payload)+len(payload)/8), uint64(n))
	var body []byte
	for i := uint32(0); i < n && r.err == nil; i++ {
		size := int(r.u32())
		start := r.off
		r.skip(size)
		if r.err != nil {
			break
		}
		var err error
		if body, err = instrumentBody(payload[start:r.off], check, body[:0], pl); err != nil {
			return nil, fmt.Errorf("function %d: %w", i, err)
		}
		out = appendLEB(out, uint64(len(body)))
		out = append(out, body...)
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.off != len(payload) {
		return nil, fmt.Errorf("%w: trailing bytes in the code section", ErrNotInstrumentable)
	}
	return out, nil
}

// instrumentBody copies one function body, inserting check after every loop
// header and renumbering function indices. A body that may call a function
// of the module (call or return_call of a defined function, call_indirect,
// call_ref and their tail forms) also gets check at its entry: a recursion
// without a loop (f calling f twice, n deep, is 2^n calls; a tail call
// loops without a frame) passes no loop header and would otherwise never
// be stopped. A body that calls imports only cannot recurse (the host's
// functions do not call back into a guest that is not inside aios_alloc,
// which may not call them). A body that names the new global (which did
// not exist before) is refused: it could reset $tick.
func instrumentBody(b, check, out []byte, pl *plan) ([]byte, error) {
	r := &wreader{b: b}
	for n := r.u32(); n > 0 && r.err == nil; n-- { // locals
		r.u32()
		r.valType()
	}
	entry := len(out) + r.off // where the instructions start in out
	calls := false
	mark := 0
	for r.off < len(b) && r.err == nil {
		op := r.byte()
		switch {
		case op == 0x03: // loop
			r.blockType()
			out = append(out, b[mark:r.off]...)
			out = append(out, check...)
			mark = r.off
		case op == 0x10 || op == 0x12 || op == 0xd2: // call, return_call, ref.func
			out = append(out, b[mark:r.off]...)
			idx := r.u32()
			calls = calls || (op != 0xd2 && idx >= pl.nImportFuncs)
			out = appendLEB(out, uint64(pl.fn(idx)))
			mark = r.off
		case op == 0x11 || op == 0x13 || op == 0x14 || op == 0x15: // call_indirect, return_call_indirect, call_ref, return_call_ref
			calls = true
			r.operands(op)
		case op == 0x23 || op == 0x24: // global.get, global.set
			if uint64(r.u32()) >= pl.tickGlobal {
				r.fail("global index out of range")
			}
		default:
			r.operands(op)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	out = append(out, b[mark:]...)
	if calls {
		out = append(out, check...) // room
		copy(out[entry+len(check):], out[entry:len(out)-len(check)])
		copy(out[entry:], check)
	}
	return out, nil
}

// operands skips the immediates of the instruction op (already read).
func (r *wreader) operands(op byte) {
	switch {
	case op == 0x02 || op == 0x03 || op == 0x04 || op == 0x06: // block, loop, if, try
		r.blockType()
	case op == 0x0c || op == 0x0d || op == 0x14 || op == 0x15 ||
		op == 0x10 || op == 0x12 || op == 0xd2 ||
		op == 0x07 || op == 0x08 || op == 0x09 || op == 0x18 || op == 0xd5 || op == 0xd6 || // ... br_on_null, br_on_non_null
		(op >= 0x20 && op <= 0x26):
		r.u32()
	case op == 0x0e: // br_table
		for k := r.u32(); k > 0 && r.err == nil; k-- {
			r.u32()
		}
		r.u32()
	case op == 0x11 || op == 0x13: // call_indirect, return_call_indirect
		r.u32()
		r.u32()
	case op == 0x1c: // select t*
		for k := r.u32(); k > 0 && r.err == nil; k-- {
			r.valType()
		}
	case op == 0x1f: // try_table
		r.blockType()
		for k := r.u32(); k > 0 && r.err == nil; k-- {
			switch kind := r.byte(); kind {
			case 0x00, 0x01:
				r.u32()
				r.u32()
			case 0x02, 0x03:
				r.u32()
			default:
				r.fail("unknown catch kind 0x%02x", kind)
			}
		}
	case op >= 0x28 && op <= 0x3e:
		r.memarg()
	case op == 0x3f || op == 0x40:
		r.u32()
	case op == 0x41:
		r.leb(5)
	case op == 0x42:
		r.leb(10)
	case op == 0x43:
		r.skip(4)
	case op == 0x44:
		r.skip(8)
	case op == 0xd0:
		r.heapType()
	case op <= 0x01 || op == 0x05 || op == 0x0a || op == 0x0b || op == 0x0f || op == 0x19 || op == 0x1a || op == 0x1b ||
		(op >= 0x45 && op <= 0xc4) || op == 0xd1 || op == 0xd3 || op == 0xd4: // ... ref.is_null, ref.eq, ref.as_non_null
	case op == 0xfc:
		switch sub := r.u32(); {
		case sub <= 7:
		case sub == 8, sub == 10, sub == 12, sub == 14:
			r.u32()
			r.u32()
		case sub == 9, sub == 11, sub == 13, sub == 15, sub == 16, sub == 17:
			r.u32()
		default:
			r.fail("unknown 0xfc instruction %d", sub)
		}
	case op == 0xfd:
		switch sub := r.u32(); {
		case sub <= 11 || sub == 92 || sub == 93:
			r.memarg()
		case sub == 12 || sub == 13:
			r.skip(16)
		case sub >= 21 && sub <= 34:
			r.skip(1)
		case sub >= 84 && sub <= 91:
			r.memarg()
			r.skip(1)
		}
	case op == 0xfe:
		if sub := r.u32(); sub == 0x03 {
			r.skip(1)
		} else {
			r.memarg()
		}
	default:
		r.fail("opcode 0x%02x is not supported by the instrumentation", op)
	}
}
