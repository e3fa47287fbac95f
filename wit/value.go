package wit

// Value is a WIT value in the Go form that the Canonical ABI (package
// component) lifts from and lowers into guest memory, and that FromJSON /
// ToJSON convert to and from canonical generic JSON values (abi.Normalize
// form). The representation per Kind is fixed:
//
//	bool                      bool
//	s8, s16, s32, s64         int64   (range of the kind enforced by FromJSON)
//	u8, u16, u32, u64         uint64  (range of the kind enforced by FromJSON)
//	f32                       float32
//	f64                       float64
//	char                      rune    (a Unicode scalar value: not a surrogate, ≤ 0x10FFFF)
//	string                    string  (valid UTF-8)
//	list<u8>                  []byte  (lift produces []byte; lower and ToJSON also accept []Value of uint64)
//	list<T> (other T)         []Value (fixed-size lists have exactly Len elements)
//	record                    Record  (field values in declaration order)
//	tuple                     Tuple   (element values in order)
//	variant                   Variant (Case indexes Type.Cases; Val is nil without payload)
//	enum                      Enum    (index into Type.Names)
//	flags                     Flags   (bit i set = Type.Names[i] set; at most 64 flags)
//	map<K, V>                 []Value of Tuple{key, value}, in order (later duplicates win in JSON)
//	option<T>                 Option
//	result<T, E>              Result  (Val is nil when the taken side has no type)
//	own<R>, borrow<R>         Handle  (a resource handle index in the handle table)
//	future<T>, stream<T>      Handle
//	error-context             Handle
//
// A Value never holds a pointer into guest memory: lifting copies.
type Value = any

// Record is the value of a record type: one Value per field, in the order of
// Type.Fields.
type Record []Value

// Tuple is the value of a tuple type: one Value per element.
type Tuple []Value

// Variant is the value of a variant type. Case is the index into Type.Cases;
// Val is the payload, nil when the case has no type.
type Variant struct {
	Case uint32
	Val  Value
}

// Enum is the value of an enum type: the index of the case in Type.Names.
type Enum uint32

// Flags is the value of a flags type: bit i is Type.Names[i].
type Flags uint64

// Option is the value of option<T>. Val is meaningful only when Some.
type Option struct {
	Some bool
	Val  Value
}

// Result is the value of result<T, E>. IsErr tells which side was taken; Val
// is that side's value, or nil when that side has no type.
type Result struct {
	IsErr bool
	Val   Value
}

// Handle is a resource, future, stream or error-context handle index.
type Handle uint32

// MaxFlags is the largest number of flags a flags type may declare that the
// Flags representation carries.
const MaxFlags = 64
