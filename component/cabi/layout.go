package cabi

import (
	"fmt"

	"github.com/aios-host/aios-host/wit"
)

// CoreType is a core WebAssembly value type as used by flattening.
type CoreType uint8

// Core value types.
const (
	I32 CoreType = iota + 1
	I64
	F32
	F64
)

func (c CoreType) String() string {
	switch c {
	case I32:
		return "i32"
	case I64:
		return "i64"
	case F32:
		return "f32"
	case F64:
		return "f64"
	}
	return "?"
}

// Limits of the Canonical ABI.
const (
	MaxFlatParams  = 16
	MaxFlatResults = 1
	// MaxStringByteLength and MaxListByteLength bound a single string or list.
	MaxStringByteLength = 1<<28 - 1
	MaxListByteLength   = 1<<28 - 1
	// MaxFlags is the largest flags type the Canonical ABI allows.
	MaxFlags = 32
	// maxTypeSize bounds elem_size of any type (Binary.md validation rule).
	maxTypeSize = 1 << 28
)

// Type is a WIT type compiled for the Canonical ABI: its size, alignment,
// flattening and the compiled types of its parts, computed once. Types are
// immutable and safe for concurrent use.
type Type struct {
	W     *wit.Type
	Kind  wit.Kind
	Size  uint32
	Align uint32
	Flat  []CoreType

	elem     *Type    // list, option (as cases[1] too)
	fixedLen uint32   // fixed-size list
	fields   []*Type  // record fields, tuple elements
	offsets  []uint32 // record/tuple field offsets
	cases    []*Type  // variant-like: payload per case (nil = none); enum has len(names) nil cases
	discSize uint32   // variant-like: 1, 2 or 4
	payload  uint32   // variant-like: payload offset
	nflags   int
	handles  bool // a resource handle is somewhere inside (hasHandle)
	ptrs     bool // a string or variable-length list is somewhere inside
	// host is the host memory a lifted value of this type takes besides
	// what its strings and variable-length lists hold (those are charged
	// when lifted): boxes, field slices, fixed-size lists. The lift
	// budget charges it per list element (Context.loadList).
	host uint64
}

// Host memory of lifted values (Type.host), charged to the lift budget:
// charging only the guest's bytes let a list<tuple<u8,u8,u8,u8>> within
// the budget take 20 times the budget of host memory
// (TestLiftBudgetCountsHostMemory).
const (
	costSlot    = 16 // one wit.Value (an interface), in a list or record
	costScalar  = 8  // a boxed integer, float, char, enum, flags or handle
	costString  = 16 // a boxed string header
	costSlice   = 24 // a boxed slice header: record, tuple, list
	costVariant = 24 // a boxed wit.Option, wit.Result or wit.Variant
)

// hostCost computes Type.host from the parts (compiled already).
func hostCost(ct *Type) uint64 {
	switch ct.Kind {
	case wit.KindBool, wit.KindU8, wit.KindS8:
		return 0
	case wit.KindString:
		return costString
	case wit.KindList:
		if ct.fixedLen == 0 {
			return costSlice
		}
		if ct.elem.Kind == wit.KindU8 {
			return costSlice + uint64(ct.fixedLen)
		}
		return costSlice + uint64(ct.fixedLen)*(costSlot+ct.elem.host)
	case wit.KindRecord, wit.KindTuple:
		c := uint64(costSlice)
		for _, f := range ct.fields {
			c += costSlot + f.host
		}
		return c
	case wit.KindVariant, wit.KindOption, wit.KindResult:
		var most uint64
		for _, x := range ct.cases {
			if x != nil {
				most = max(most, x.host)
			}
		}
		return costVariant + most
	}
	return costScalar
}

// Compiler compiles wit types, sharing the compiled form of types shared by
// pointer. A Compiler is not safe for concurrent use; the Types it returns are.
type Compiler struct {
	memo map[*wit.Type]*Type
	// AllowHandles lets own<R> and borrow<R> compile as u32 handle indices
	// (wit.Handle values). The runtime sets it only for functions that the
	// host implements (WASI resources), never for a guest's exports.
	AllowHandles bool
}

// NewCompiler returns an empty Compiler.
func NewCompiler() *Compiler { return &Compiler{memo: map[*wit.Type]*Type{}} }

// Compile compiles t. It refuses types the runtime does not support
// (resources, futures, streams, error-context) naming them, and types whose
// size exceeds the Canonical ABI's limit.
func (c *Compiler) Compile(t *wit.Type) (*Type, error) {
	return c.compile(t, 0)
}

func (c *Compiler) compile(t *wit.Type, depth int) (*Type, error) {
	if t == nil {
		return nil, fmt.Errorf("missing type")
	}
	if ct, ok := c.memo[t]; ok && (c.AllowHandles || !hasHandle(ct)) {
		return ct, nil
	}
	if depth > 100 {
		return nil, fmt.Errorf("type nested deeper than 100 levels")
	}
	ct := &Type{W: t, Kind: t.Kind}
	name := t.Name
	if name == "" {
		name = t.Kind.String()
		if (t.Kind == wit.KindOwn || t.Kind == wit.KindBorrow) && t.Resource != nil {
			name += "<" + t.Resource.Name + ">" // own<output-stream>, not own
		}
	}
	sub := func(u *wit.Type, what string) (*Type, error) {
		x, err := c.compile(u, depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", name, what, err)
		}
		return x, nil
	}
	switch t.Kind {
	case wit.KindBool, wit.KindS8, wit.KindU8:
		ct.Size, ct.Align, ct.Flat = 1, 1, []CoreType{I32}
	case wit.KindS16, wit.KindU16:
		ct.Size, ct.Align, ct.Flat = 2, 2, []CoreType{I32}
	case wit.KindS32, wit.KindU32, wit.KindChar:
		ct.Size, ct.Align, ct.Flat = 4, 4, []CoreType{I32}
	case wit.KindF32:
		ct.Size, ct.Align, ct.Flat = 4, 4, []CoreType{F32}
	case wit.KindS64, wit.KindU64:
		ct.Size, ct.Align, ct.Flat = 8, 8, []CoreType{I64}
	case wit.KindF64:
		ct.Size, ct.Align, ct.Flat = 8, 8, []CoreType{F64}
	case wit.KindString:
		ct.Size, ct.Align, ct.Flat = 8, 4, []CoreType{I32, I32}
	case wit.KindList:
		e, err := sub(t.Elem, "element")
		if err != nil {
			return nil, err
		}
		ct.elem = e
		if t.Len > 0 {
			ct.fixedLen = t.Len
			sz := uint64(e.Size) * uint64(t.Len)
			if sz >= maxTypeSize {
				return nil, fmt.Errorf("%s: fixed-size list of %d elements is too large", name, t.Len)
			}
			ct.Size, ct.Align = uint32(sz), e.Align
			if uint64(len(e.Flat))*uint64(t.Len) <= MaxFlatParams+1 {
				for i := uint32(0); i < t.Len; i++ {
					ct.Flat = append(ct.Flat, e.Flat...)
				}
			} else {
				// Longer than any flat signature can carry: mark as "many".
				ct.Flat = make([]CoreType, MaxFlatParams+1)
			}
		} else {
			ct.Size, ct.Align, ct.Flat = 8, 4, []CoreType{I32, I32}
		}
	case wit.KindRecord, wit.KindTuple:
		var parts []*wit.Type
		if t.Kind == wit.KindRecord {
			if len(t.Fields) == 0 {
				return nil, fmt.Errorf("%s: record without fields", name)
			}
			for _, f := range t.Fields {
				parts = append(parts, f.Type)
			}
		} else {
			if len(t.Tuple) == 0 {
				return nil, fmt.Errorf("%s: empty tuple", name)
			}
			parts = t.Tuple
		}
		var s uint64
		ct.Align = 1
		for i, p := range parts {
			what := fmt.Sprintf("element %d", i)
			if t.Kind == wit.KindRecord {
				what = "field " + t.Fields[i].Name
			}
			f, err := sub(p, what)
			if err != nil {
				return nil, err
			}
			s = alignTo64(s, f.Align)
			ct.offsets = append(ct.offsets, uint32(s))
			s += uint64(f.Size)
			if s >= maxTypeSize {
				return nil, fmt.Errorf("%s: too large", name)
			}
			ct.Align = max(ct.Align, f.Align)
			ct.fields = append(ct.fields, f)
			ct.Flat = appendFlat(ct.Flat, f.Flat)
		}
		ct.Size = uint32(alignTo64(s, ct.Align))
	case wit.KindFlags:
		n := len(t.Names)
		if n == 0 || n > MaxFlags {
			return nil, fmt.Errorf("%s: flags with %d labels (want 1..%d)", name, n, MaxFlags)
		}
		ct.nflags = n
		switch {
		case n <= 8:
			ct.Size = 1
		case n <= 16:
			ct.Size = 2
		default:
			ct.Size = 4
		}
		ct.Align, ct.Flat = ct.Size, []CoreType{I32}
	case wit.KindVariant, wit.KindEnum, wit.KindOption, wit.KindResult:
		var payloads []*wit.Type
		switch t.Kind {
		case wit.KindVariant:
			if len(t.Cases) == 0 {
				return nil, fmt.Errorf("%s: variant without cases", name)
			}
			for _, cs := range t.Cases {
				payloads = append(payloads, cs.Type)
			}
		case wit.KindEnum:
			if len(t.Names) == 0 {
				return nil, fmt.Errorf("%s: enum without cases", name)
			}
			payloads = make([]*wit.Type, len(t.Names))
		case wit.KindOption:
			if t.Elem == nil {
				return nil, fmt.Errorf("%s: option without a type", name)
			}
			payloads = []*wit.Type{nil, t.Elem}
		case wit.KindResult:
			payloads = []*wit.Type{t.Ok, t.Err}
		}
		n := len(payloads)
		switch {
		case n <= 1<<8:
			ct.discSize = 1
		case n <= 1<<16:
			ct.discSize = 2
		default:
			ct.discSize = 4
		}
		maxAlign, maxSize := uint32(1), uint32(0)
		var flat []CoreType
		for i, p := range payloads {
			if p == nil {
				ct.cases = append(ct.cases, nil)
				continue
			}
			x, err := sub(p, fmt.Sprintf("case %d", i))
			if err != nil {
				return nil, err
			}
			ct.cases = append(ct.cases, x)
			maxAlign = max(maxAlign, x.Align)
			maxSize = max(maxSize, x.Size)
			for j, f := range x.Flat {
				if j < len(flat) {
					flat[j] = join(flat[j], f)
				} else {
					flat = append(flat, f)
				}
			}
		}
		ct.payload = alignTo(ct.discSize, maxAlign)
		ct.Align = max(ct.discSize, maxAlign)
		s := uint64(ct.payload) + uint64(maxSize)
		if s >= maxTypeSize {
			return nil, fmt.Errorf("%s: too large", name)
		}
		ct.Size = uint32(alignTo64(s, ct.Align))
		ct.Flat = append([]CoreType{I32}, flat...)
		if t.Kind == wit.KindOption {
			ct.elem = ct.cases[1]
		}
	case wit.KindOwn, wit.KindBorrow:
		if !c.AllowHandles {
			return nil, fmt.Errorf("%s: resource handles are not supported at run time", name)
		}
		ct.Size, ct.Align, ct.Flat = 4, 4, []CoreType{I32}
	case wit.KindFuture, wit.KindStream:
		return nil, fmt.Errorf("%s: async values (future/stream) are not supported", name)
	case wit.KindErrorContext:
		return nil, fmt.Errorf("error-context is not supported")
	default:
		return nil, fmt.Errorf("unknown type kind %d", t.Kind)
	}
	ct.handles = ct.Kind == wit.KindOwn || ct.Kind == wit.KindBorrow
	ct.ptrs = ct.Kind == wit.KindString || (ct.Kind == wit.KindList && ct.fixedLen == 0)
	ct.host = hostCost(ct)
	for _, parts := range [][]*Type{ct.fields, ct.cases, {ct.elem}} {
		for _, x := range parts {
			ct.handles = ct.handles || (x != nil && x.handles)
			ct.ptrs = ct.ptrs || (x != nil && x.ptrs)
		}
	}
	c.memo[t] = ct
	return ct, nil
}

// appendFlat appends b to a, capping the length at MaxFlatParams+1 (any
// longer flattening spills to memory anyway).
func appendFlat(a, b []CoreType) []CoreType {
	for _, x := range b {
		if len(a) > MaxFlatParams {
			break
		}
		a = append(a, x)
	}
	return a
}

func join(a, b CoreType) CoreType {
	if a == b {
		return a
	}
	if (a == I32 && b == F32) || (a == F32 && b == I32) {
		return I32
	}
	return I64
}

func alignTo(p, a uint32) uint32 { return (p + a - 1) / a * a }

func alignTo64(p uint64, a uint32) uint64 { return (p + uint64(a) - 1) / uint64(a) * uint64(a) }

// hasHandle tells whether a resource handle is somewhere inside t: computed
// once by compile (a walk of the parts on every memo hit was exponential in
// types that use a type twice at each of many levels).
func hasHandle(t *Type) bool { return t != nil && t.handles }
