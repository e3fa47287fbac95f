// Package binary reads WebAssembly Component Model binaries (layer 1, as
// produced by `wasm-tools component new` / `jco new`) into a syntax tree that
// keeps the definitions in their order, so that a linker can build the index
// spaces. It does syntax only: indices are checked later, by the linker in
// package component, which knows the index spaces.
//
// binary imports nothing of the project: the WIT decoder (package wit)
// and the linker (package component) both build on it.
package binary

// Component is a parsed component: its definitions in binary order.
type Component struct {
	Defs []Def
}

// DefKind says which field of a Def is set.
type DefKind uint8

// Definition kinds, one per section kind (aliases, canons, ... one Def each).
const (
	DefCustom DefKind = iota
	DefCoreModule
	DefCoreInstance
	DefCoreType
	DefComponent
	DefInstance
	DefAlias
	DefType
	DefCanon
	DefStart
	DefImport
	DefExport
)

var defNames = [...]string{"custom", "core module", "core instance", "core type", "component",
	"instance", "alias", "type", "canon", "start", "import", "export"}

func (k DefKind) String() string {
	if int(k) < len(defNames) {
		return defNames[k]
	}
	return "?"
}

// Def is one definition. Where tells its section and item for errors.
type Def struct {
	Kind  DefKind
	Where string // e.g. "section 8 (canon) item 3"

	Custom       *Custom
	CoreModule   []byte // the whole core module binary
	CoreInstance *CoreInstance
	Component    *Component
	Instance     *Instance
	Alias        *Alias
	Type         *TypeDef
	Canon        *Canon
	Import       *Import
	Export       *Export
}

// Custom is a custom section.
type Custom struct {
	Name string
	Data []byte
}

// Sort is a component-level sort; core sorts are CoreSort values.
type Sort uint8

// Sorts.
const (
	SortCore Sort = iota // with a CoreSort
	SortFunc
	SortValue
	SortType
	SortComponent
	SortInstance
)

// CoreSort is a core sort.
type CoreSort uint8

// Core sorts.
const (
	CSFunc     CoreSort = 0x00
	CSTable    CoreSort = 0x01
	CSMemory   CoreSort = 0x02
	CSGlobal   CoreSort = 0x03
	CSTag      CoreSort = 0x04
	CSType     CoreSort = 0x10
	CSModule   CoreSort = 0x11
	CSInstance CoreSort = 0x12
)

var sortNames = [...]string{"core", "func", "value", "type", "component", "instance"}

func (s Sort) String() string {
	if int(s) < len(sortNames) {
		return sortNames[s]
	}
	return "?"
}

func (s CoreSort) String() string {
	switch s {
	case CSFunc:
		return "core func"
	case CSTable:
		return "core table"
	case CSMemory:
		return "core memory"
	case CSGlobal:
		return "core global"
	case CSTag:
		return "core tag"
	case CSType:
		return "core type"
	case CSModule:
		return "core module"
	case CSInstance:
		return "core instance"
	}
	return "core ?"
}

// SortIdx names an item of a sort.
type SortIdx struct {
	Sort     Sort
	CoreSort CoreSort // when Sort == SortCore
	Idx      uint32
}

// CoreInstance is (instantiate module args) or a bag of inline exports.
type CoreInstance struct {
	Instantiate bool
	Module      uint32
	Args        []CoreArg    // when Instantiate
	Exports     []CoreExport // otherwise
}

// CoreArg is (with name (instance i)).
type CoreArg struct {
	Name     string
	Instance uint32
}

// CoreExport is an inline export of a core instance.
type CoreExport struct {
	Name string
	Sort CoreSort
	Idx  uint32
}

// Instance is (instantiate component args) or a bag of inline exports.
type Instance struct {
	Instantiate bool
	Component   uint32
	Args        []Arg // with Instantiate
	Exports     []Arg // otherwise
}

// Arg is a named sortidx (instantiate argument or inline export).
type Arg struct {
	Name string
	Ref  SortIdx
}

// AliasKind tells alias targets apart.
type AliasKind uint8

// Alias kinds.
const (
	AliasExport AliasKind = iota
	AliasCoreExport
	AliasOuter
)

// Alias is (alias export i n), (alias core export i n) or (alias outer ct idx).
type Alias struct {
	Kind     AliasKind
	Sort     Sort
	CoreSort CoreSort
	Instance uint32 // export aliases
	Name     string // export aliases
	Count    uint32 // outer
	Idx      uint32 // outer
}

// TypeKind is the kind of a type definition.
type TypeKind uint8

// Type definition kinds.
const (
	TypePrim TypeKind = iota
	TypeRecord
	TypeVariant
	TypeList
	TypeTuple
	TypeFlags
	TypeEnum
	TypeOption
	TypeResult
	TypeOwn
	TypeBorrow
	TypeStream
	TypeFuture
	TypeErrorContext
	TypeMap
	TypeFunc
	TypeComponent
	TypeInstance
	TypeResource
	TypeCoreModule // a core module type (core type section), kept opaque
	TypeCoreFunc   // a core function type, kept opaque
)

// Primitive value type opcodes (ValType.Prim, TypeDef.Prim).
const (
	PrimBool         byte = 0x7f
	PrimS8           byte = 0x7e
	PrimU8           byte = 0x7d
	PrimS16          byte = 0x7c
	PrimU16          byte = 0x7b
	PrimS32          byte = 0x7a
	PrimU32          byte = 0x79
	PrimS64          byte = 0x78
	PrimU64          byte = 0x77
	PrimF32          byte = 0x76
	PrimF64          byte = 0x75
	PrimChar         byte = 0x74
	PrimString       byte = 0x73
	PrimErrorContext byte = 0x64
)

// ValType is a primitive (its opcode, one of the Prim constants) or a
// type index.
type ValType struct {
	Prim byte // non-zero for a primitive
	Idx  uint32
}

// TypeDef is a type definition. Its fields are read according to Kind.
type TypeDef struct {
	Kind   TypeKind
	Prim   byte       // TypePrim: a Prim opcode
	Labels []string   // record fields, variant cases, flags, enum; func params
	Types  []*ValType // record fields, variant payloads (nil = none), tuple, list/option elem, result ok/err, map key/value, func params
	Len    uint32     // fixed-size list
	Result *ValType   // func result (nil = none)
	Async  bool       // async func
	Decls  []Decl     // component and instance types
	Idx    uint32     // own/borrow resource type index
}

// DeclKind is the kind of a declaration in a component or instance type.
type DeclKind uint8

// Declaration kinds.
const (
	DeclCoreType DeclKind = iota
	DeclType
	DeclAlias
	DeclExport
	DeclImport
)

// Decl is one declaration of a component or instance type.
type Decl struct {
	Kind   DeclKind
	Type   *TypeDef
	Alias  *Alias
	Name   string
	Extern ExternDesc
}

// ExternDesc is an externtype: the sort and the type index (or bound).
type ExternDesc struct {
	Sort    Sort // SortCore means a core module
	Idx     uint32
	SubRes  bool     // (type (sub resource))
	ValType *ValType // value bound
}

// CanonOp is the opcode of a canonical definition.
type CanonOp uint8

// Canonical definitions that the reader recognises by name.
const (
	CanonLift           CanonOp = 0x00
	CanonLower          CanonOp = 0x01
	CanonResourceNew    CanonOp = 0x02
	CanonResourceDrop   CanonOp = 0x03
	CanonResourceRep    CanonOp = 0x04
	CanonResourceDropAs CanonOp = 0x07
)

// StringEncoding of canonical options.
type StringEncoding uint8

// Encodings.
const (
	UTF8 StringEncoding = iota
	UTF16
	Latin1UTF16
)

// Options are canonical options. Nil pointers mean absent.
type Options struct {
	Encoding   StringEncoding
	Memory     *uint32
	Realloc    *uint32
	PostReturn *uint32
	Async      bool
	Callback   *uint32
}

// Canon is a canonical definition.
type Canon struct {
	Op   CanonOp
	Name string // readable name of Op, e.g. "lift", "resource.new", "task.return"
	Func uint32 // lift: core func; lower: func
	Type uint32 // lift: func type; resource.*: resource type; context.get/set: slot
	Opts Options
	Flag bool // async? / cancel? immediates of concurrency built-ins
}

// Import is an import definition.
type Import struct {
	Name   string
	Extern ExternDesc
}

// Export is an export definition.
type Export struct {
	Name   string
	Ref    SortIdx
	Extern *ExternDesc // optional type ascription
}
