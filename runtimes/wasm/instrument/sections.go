package instrument

import "fmt"

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
