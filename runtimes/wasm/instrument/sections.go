package instrument

import (
	"fmt"
	"math"
)

// The kinds of a core module's imports (the binary format's externtype
// bytes).
const (
	KindFunc   = 0x00
	KindTable  = 0x01
	KindMemory = 0x02
	KindGlobal = 0x03
	KindTag    = 0x04
)

// Import is one import of a core module.
type Import struct {
	Module, Name string
	Kind         byte // KindFunc … KindTag
}

// KindName is the word for an import kind: "function", "table", "memory",
// "global" or "tag".
func KindName(kind byte) string {
	switch kind {
	case KindFunc:
		return "function"
	case KindTable:
		return "table"
	case KindMemory:
		return "memory"
	case KindGlobal:
		return "global"
	case KindTag:
		return "tag"
	}
	return fmt.Sprintf("kind 0x%02x", kind)
}

// sections calls fn with the id and payload reader of each section of
// the core module bin, in order, until fn returns false.
func sections(bin []byte, fn func(id byte, r *wreader) bool) error {
	if len(bin) < 8 {
		return fmt.Errorf("%w: %d bytes is no module", ErrNotInstrumentable, len(bin))
	}
	r := &wreader{b: bin, off: 8}
	for r.off < len(bin) && r.err == nil {
		id := r.byte()
		n := int(r.u32())
		start := r.off
		r.skip(n)
		if r.err != nil {
			break
		}
		sr := &wreader{b: bin[:r.off], off: start}
		more := fn(id, sr)
		if sr.err != nil {
			return sr.err
		}
		if !more {
			return nil
		}
	}
	return r.err
}

// Imports lists the imports of the core module bin. It does not validate
// the module; an error says its import section could not be read.
func Imports(bin []byte) ([]Import, error) {
	var out []Import
	err := sections(bin, func(id byte, r *wreader) bool {
		if id != 2 {
			return true
		}
		r.eachImport(func(module, name []byte, kind byte) {
			out = append(out, Import{string(module), string(name), kind})
		})
		return false
	})
	return out, err
}

// CustomSections lists the names of the custom sections of the core
// module bin, in order. It does not validate the module; an error says a
// section could not be read.
func CustomSections(bin []byte) ([]string, error) {
	var out []string
	err := sections(bin, func(id byte, r *wreader) bool {
		if id == 0 {
			if name := r.bytes(); r.err == nil {
				out = append(out, string(name))
			}
		}
		return true
	})
	return out, err
}

// ExportKinds maps each export of the core module bin to its kind
// (KindFunc … KindTag). It does not validate the module; an error says its
// export section could not be read.
func ExportKinds(bin []byte) (map[string]byte, error) {
	out := map[string]byte{}
	err := sections(bin, func(id byte, r *wreader) bool {
		if id != 7 {
			return true
		}
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			name := r.bytes()
			kind := r.byte()
			r.u32()
			if r.err == nil {
				out[string(name)] = kind
			}
		}
		return false
	})
	return out, err
}

// MemoryMin returns the minimum, in pages, of the first memory the core
// module bin defines (its memory section's first), and whether it defines
// one. It does not validate the module; an error says its memory section
// could not be read.
func MemoryMin(bin []byte) (pages uint64, ok bool, err error) {
	err = sections(bin, func(id byte, r *wreader) bool {
		if id != 5 {
			return true
		}
		if r.u32() == 0 {
			return false
		}
		r.byte() // limits flags
		pages, ok = r.leb(10), r.err == nil
		return false
	})
	return pages, ok && err == nil, err
}

// StartFunction returns the index of the core module bin's start
// function (its start section) and whether it has one. It does not
// validate the module; an error says its sections could not be read.
func StartFunction(bin []byte) (index uint32, ok bool, err error) {
	err = sections(bin, func(id byte, r *wreader) bool {
		if id != 8 {
			return true
		}
		index, ok = r.u32(), r.err == nil
		return false
	})
	return index, ok && err == nil, err
}

// ElementOutside returns the index of the first active element segment of
// the core module bin that cannot fit in the table it fills, as far as can
// be told before instantiation (an offset given by i32.const, a table the
// module defines, at its minimum size), and whether there is one.
// Instantiating such a module fails (the segment traps); wazero skips the
// segment, and every one after it, and runs the module with those table
// entries null. It does not validate the module: what it cannot read it
// does not report.
func ElementOutside(bin []byte) (index uint32, ok bool) {
	var tables []uint64 // minimum sizes; an imported table's is not known
	_ = sections(bin, func(id byte, r *wreader) bool {
		switch id {
		case 2:
			r.eachImport(func(_, _ []byte, kind byte) {
				if kind == KindTable {
					tables = append(tables, math.MaxUint64)
				}
			})
		case 4:
			for n := r.u32(); n > 0 && r.err == nil; n-- {
				if rt := r.byte(); rt != 0x70 && rt != 0x6f {
					return false // a typed reference, or a table with an initializer
				}
				flag := r.byte()
				tables = append(tables, uint64(r.u32()))
				if flag&1 != 0 {
					r.u32()
				}
			}
		case 9:
			for i, n := uint32(0), r.u32(); i < n && r.err == nil; i++ {
				flags := r.u32()
				if flags > 7 {
					return false
				}
				table := uint32(0)
				if flags&2 != 0 && flags&1 == 0 {
					table = r.u32()
				}
				var off uint64
				known := false
				if flags&1 == 0 { // active
					start := r.off
					if r.byte() == 0x41 { // i32.const
						s := r.off
						v := r.leb(5)
						if nb := r.off - s; r.err == nil && nb < 5 && r.b[r.off-1]&0x40 != 0 {
							v |= ^uint64(0) << (7 * nb) // negative: sign-extended
						}
						off, known = uint64(uint32(v)), r.byte() == 0x0b
					}
					if !known {
						r.off = start
						constExpr(r, &plan{}, nil)
					}
				}
				if flags&3 != 0 { // elemkind or reftype
					if flags&4 != 0 {
						r.valType()
					} else {
						r.byte()
					}
				}
				k := r.u32()
				if known && k > 0 && int(table) < len(tables) && off+uint64(k) > tables[table] && r.err == nil {
					index, ok = i, true
					return false
				}
				for ; k > 0 && r.err == nil; k-- {
					if flags&4 != 0 {
						constExpr(r, &plan{}, nil)
					} else {
						r.u32()
					}
				}
			}
			return false
		}
		return true
	})
	return index, ok
}

// extendedConstOps are the instructions the extended-const proposal adds
// to constant expressions.
var extendedConstOps = map[byte]string{0x6a: "i32.add", 0x6b: "i32.sub", 0x6c: "i32.mul",
	0x7c: "i64.add", 0x7d: "i64.sub", 0x7e: "i64.mul"}

// ExtendedConst reports the first constant expression of the core module
// bin that uses an instruction of the extended-const proposal (i32.add,
// i32.sub, i32.mul and their i64 forms), which wazero does not support:
// where it is ("global[2]", "elem[0]", "data[1]"), the instruction, and
// whether there is one. It does not validate the module: what it cannot
// read it does not report.
func ExtendedConst(bin []byte) (where, op string, ok bool) {
	scan := func(r *wreader) string { // one expression, to its end
		for r.err == nil {
			c := r.byte()
			if c == 0x0b {
				return ""
			}
			if name, ok := extendedConstOps[c]; ok {
				return name
			}
			r.constImmediate(c)
		}
		return ""
	}
	importedGlobals := 0
	_ = sections(bin, func(id byte, r *wreader) bool {
		switch id {
		case 2:
			r.eachImport(func(_, _ []byte, kind byte) {
				if kind == KindGlobal {
					importedGlobals++
				}
			})
		case 6:
			for i, n := 0, int(r.u32()); i < n && r.err == nil; i++ {
				r.valType()
				r.byte() // mutability
				if op = scan(r); op != "" {
					where = fmt.Sprintf("global[%d]", importedGlobals+i)
					return false
				}
			}
		case 9:
			for i, n := uint32(0), r.u32(); i < n && r.err == nil; i++ {
				flags := r.u32()
				if flags > 7 {
					return false
				}
				if flags&2 != 0 && flags&1 == 0 {
					r.u32() // table index
				}
				if flags&1 == 0 { // active: offset expression
					if op = scan(r); op != "" {
						where = fmt.Sprintf("elem[%d]", i)
						return false
					}
				}
				if flags&3 != 0 { // elemkind or reftype
					if flags&4 != 0 {
						r.valType()
					} else {
						r.byte()
					}
				}
				for k := r.u32(); k > 0 && r.err == nil; k-- {
					if flags&4 == 0 {
						r.u32()
					} else if op = scan(r); op != "" {
						where = fmt.Sprintf("elem[%d]", i)
						return false
					}
				}
			}
		case 11:
			for i, n := uint32(0), r.u32(); i < n && r.err == nil; i++ {
				flags := r.u32()
				if flags == 2 {
					r.u32() // memory index
				}
				if flags != 1 { // active: offset expression
					if op = scan(r); op != "" {
						where = fmt.Sprintf("data[%d]", i)
						return false
					}
				}
				r.skip(int(r.u32()))
			}
			return false
		}
		return true
	})
	return where, op, where != ""
}
