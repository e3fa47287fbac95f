// Package wit owns the WebAssembly Interface Types model used by aios-host:
// the WIT text parser and resolver, the structural type model shared with the
// Canonical ABI and the component binary reader, the mapping from WIT types
// to JSON Schema and from JSON values to WIT values, and a WIT printer.
//
// wit imports nothing from aios-host but abi.
package wit

// Kind is the kind of a resolved (structural) WIT type.
type Kind uint8

// The kinds of WIT value types.
const (
	KindInvalid Kind = iota
	KindBool
	KindS8
	KindU8
	KindS16
	KindU16
	KindS32
	KindU32
	KindS64
	KindU64
	KindF32
	KindF64
	KindChar
	KindString
	KindList // Elem; Len > 0 for a fixed-size list
	KindRecord
	KindTuple
	KindVariant
	KindEnum
	KindFlags
	KindOption // Elem
	KindResult // Ok, Err (each may be nil)
	KindOwn    // Resource
	KindBorrow // Resource
	KindFuture // Elem may be nil
	KindStream // Elem may be nil
	KindErrorContext
	KindMap // Key, Elem: map<K, V> (appended after the original kinds; values are []Tuple of key/value pairs)
)

var kindNames = [...]string{"invalid", "bool", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64",
	"f32", "f64", "char", "string", "list", "record", "tuple", "variant", "enum", "flags",
	"option", "result", "own", "borrow", "future", "stream", "error-context", "map"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Type is a resolved WIT type. Types are shared by pointer and must be
// treated as immutable once built. A named type (a `record foo` or `type x =
// ...` in an interface) carries its Name, Owner and Docs; anonymous types
// (list<u8>, option<string>, ...) have an empty Name.
//
// A type alias (`type a = b`) is represented by the target type itself: the
// resolver records aliases for printing in the owning Interface, not here.
type Type struct {
	Kind  Kind
	Name  string // WIT name as written (kebab-case), empty if anonymous
	Owner string // interface or world that defines a named type, e.g. "my-tools:image-tools/tool-handler@1.0.0"
	Docs  string // doc comment, without the comment markers

	Elem     *Type      // list, option, future, stream; the value type of a map
	Key      *Type      // map key type
	Len      uint32     // fixed-size list length (0 = variable length)
	Fields   []Field    // record
	Cases    []Case     // variant
	Names    []string   // enum cases or flags, in order
	NameDocs []string   // doc comments of Names (same length), nil when none has any
	Tuple    []*Type    // tuple elements
	Ok, Err  *Type      // result
	Resource *Resource  // own, borrow
	Gate     *Stability // @since/@unstable/@deprecated on the definition, if any
}

// Field is a record field.
type Field struct {
	Name string
	Type *Type
	Docs string
}

// Case is a variant case; Type is nil for a case without payload.
type Case struct {
	Name string
	Type *Type
	Docs string
}

// Resource is a resource type definition.
type Resource struct {
	Name    string
	Owner   string
	Docs    string
	Methods []*Func // constructor, methods and static functions (see Func.Kind)
}

// FuncKind tells free functions from resource members.
type FuncKind uint8

// Function kinds.
const (
	FuncFree FuncKind = iota
	FuncMethod
	FuncStatic
	FuncConstructor
)

// Func is a function type with its name.
type Func struct {
	Name   string
	Kind   FuncKind
	Params []Param
	Result *Type // nil when the function returns nothing
	Async  bool
	Docs   string
	Gate   *Stability
}

// Param is a named function parameter.
type Param struct {
	Name string
	Type *Type
}

// Stability is a feature gate: @since(version = ..., feature = ...),
// @unstable(feature = ...) or @deprecated(version = ...).
type Stability struct {
	Since      string
	Unstable   string // feature name
	Feature    string // with @since
	Deprecated string
}

// Primitive returns the shared Type for a primitive kind (bool … string).
func Primitive(k Kind) *Type { return &prims[k] }

var prims = func() (p [KindString + 1]Type) {
	for k := KindBool; k <= KindString; k++ {
		p[k] = Type{Kind: k}
	}
	return
}()
