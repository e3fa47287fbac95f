package wasm

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/aios-host/aios-host/abi"
	instr "github.com/aios-host/aios-host/runtimes/wasm/instrument"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// ABIVersion is the guest ABI version this runtime speaks.
const ABIVersion = 1

// The guest's exports (docs/abi.md).
const (
	exportMemory   = "memory"
	exportAlloc    = "aios_alloc"
	exportFree     = "aios_free"
	exportRegister = "aios_register"
	exportCall     = "aios_call"
	exportVersion  = "aios_abi_version"
)

// ErrComponent is wrapped by the error for a Component Model binary.
var ErrComponent = fmt.Errorf("is a WebAssembly component; load it with the component runtime")

// checkHeader tells a core module from a component and from junk, reading
// the 8-byte preamble: magic "\0asm", then a 16-bit version and a 16-bit
// layer (0 for core modules, 1 for components).
func checkHeader(name string, bin []byte) error {
	if len(bin) < 8 || !bytes.Equal(bin[:4], []byte("\x00asm")) {
		return fmt.Errorf("%s: not a WebAssembly binary (it does not start with the \\0asm magic)", name)
	}
	layer := uint16(bin[6]) | uint16(bin[7])<<8
	version := uint16(bin[4]) | uint16(bin[5])<<8
	switch {
	case layer == 1:
		return fmt.Errorf("%s %w (its header says layer 1, version 0x%x)", name, ErrComponent, version)
	case layer != 0 || version != 1:
		return fmt.Errorf("%s: unsupported WebAssembly header (version %d, layer %d; want a core module, version 1)", name, version, layer)
	}
	return checkComplete(name, bin)
}

// emptyRegister is the error for an aios_register that returned an empty
// buffer (a stub returning 0): it said "aios_register result is empty",
// not what the function must return.
func emptyRegister(packed uint64) error {
	return fmt.Errorf("aios_register returned an empty buffer (ptr %d, len 0): it must return the packed buffer (ptr<<32 | len) of the encoded ToolRegister, the provider and its tools (docs/abi.md, \"ToolRegister\")", packed>>32)
}

// sectionNames are the core module's section ids, by name.
var sectionNames = [...]string{"custom", "type", "import", "function", "table", "memory", "global",
	"export", "start", "element", "code", "data", "data count", "tag"}

// checkComplete walks the section headers of the core module bin (an id
// byte, then the payload's size) and says so when a section runs past the
// end of the file: a module copied in part was refused in the decoder's
// words, "section code: read 0-th code segment: read body: unexpected
// EOF", which did not tell the author the file is incomplete
// (TestCutShortModuleSaysTruncated). The payloads are not read.
func checkComplete(name string, bin []byte) error {
	for off := 8; off < len(bin); {
		start, id := off, bin[off]
		section := fmt.Sprintf("section id %d", id)
		if int(id) < len(sectionNames) {
			section = fmt.Sprintf("%s section (id %d)", sectionNames[id], id)
		}
		off++
		// The size is an unsigned LEB128 of at most 5 bytes, which is
		// encoding/binary's varint.
		size, n := binary.Uvarint(bin[off:min(len(bin), off+5)])
		if n <= 0 {
			if len(bin)-off >= 5 {
				return nil // a size longer than 5 bytes: the decoder says what is wrong
			}
			return fmt.Errorf("%s: the WebAssembly module is cut short: its %s at byte %d has no size, as the file ends after %d bytes (truncated, or still being copied? copy it again)",
				name, section, start, len(bin))
		}
		off += n
		if size > uint64(len(bin)-off) {
			return fmt.Errorf("%s: the WebAssembly module is cut short: its %s at byte %d declares %d bytes, but the file ends after %d bytes (truncated, or still being copied? copy it again)",
				name, section, start, size, len(bin))
		}
		off += int(size)
	}
	return nil
}

type sig struct{ params, results []api.ValueType }

var (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

var guestExports = []struct {
	name     string
	sig      sig
	required bool
}{
	{exportAlloc, sig{[]api.ValueType{i32}, []api.ValueType{i32}}, true},
	{exportRegister, sig{nil, []api.ValueType{i64}}, true},
	{exportCall, sig{[]api.ValueType{i32, i32}, []api.ValueType{i64}}, true},
	{exportFree, sig{[]api.ValueType{i32, i32}, nil}, false},
	{exportVersion, sig{nil, []api.ValueType{i32}}, false},
	// A reactor's initialization (wasi-libc, Go -buildmode=c-shared):
	// called with no arguments, its results ignored.
	{"_initialize", sig{nil, nil}, false},
}

// hostImports are the functions of the "aios" import module.
var hostImports = map[string]sig{
	"call_tool":   {[]api.ValueType{i32, i32}, []api.ValueType{i64}},
	"space_read":  {[]api.ValueType{i32, i32}, []api.ValueType{i64}},
	"space_write": {[]api.ValueType{i32, i32}, []api.ValueType{i64}},
	"ai_complete": {[]api.ValueType{i32, i32}, []api.ValueType{i64}},
	"log":         {[]api.ValueType{i32, i32, i32}, nil},
	tickImport:    {nil, []api.ValueType{i32}}, // added by instrument.go
}

// wasiImports are the functions of WASI preview 1 as the host defines
// them (wazero's; wasmtime's preview 1 has the same names and types).
var wasiImports = sync.OnceValue(func() map[string]sig {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return nil
	}
	m := rt.Module(wasi_snapshot_preview1.ModuleName)
	if m == nil {
		return nil
	}
	out := map[string]sig{}
	for name, d := range m.ExportedFunctionDefinitions() {
		out[name] = sig{d.ParamTypes(), d.ResultTypes()}
	}
	return out
})

// wasiImportProblem says what is wrong with a function import fn of
// type got from wasi_snapshot_preview1, or "": a name WASI preview 1 does
// not define, or another type than its own (wazero said only
// "signature mismatch: i32_i32 != i32i32i32i32_i32" at instantiation,
// naming neither which type was the guest's nor the ABI's).
func wasiImportProblem(fn string, got sig) string {
	known := wasiImports()
	if known == nil {
		return "" // left to the engine
	}
	want, ok := known[fn]
	if !ok {
		return fmt.Sprintf("imports wasi_snapshot_preview1.%s, which WASI preview 1 does not define", fn)
	}
	if !sameTypes(got.params, want.params) || !sameTypes(got.results, want.results) {
		return fmt.Sprintf("imports wasi_snapshot_preview1.%s with type %s, want %s", fn, sigString(got), sigString(want))
	}
	return ""
}

func sameTypes(a, b []api.ValueType) bool {
	return bytes.Equal(a, b)
}

func sigString(s sig) string {
	name := func(ts []api.ValueType) string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = api.ValueTypeName(t)
		}
		return strings.Join(out, ", ")
	}
	return "(" + name(s.params) + ") -> (" + name(s.results) + ")"
}

// nonFuncImportProblem says why an import of a memory, table, global or
// tag (kind: instr.KindMemory …) is refused; both engines' checks use it.
func nonFuncImportProblem(kind byte, mod, name string) string {
	hint := ""
	if kind == instr.KindMemory {
		hint = ` (a guest defines its memory and exports it as "memory": link without --import-memory)`
	}
	return fmt.Sprintf("imports the %s %s.%s, but the host offers only the functions of the modules aios and wasi_snapshot_preview1%s", instr.KindName(kind), mod, name, hint)
}

// foreignImports gathers a module's function imports of modules the host
// does not offer (neither aios nor wasi_snapshot_preview1), by module in the
// order first met, so that the load error says one thing per module: a Go
// program built with GOOS=js imports twenty-odd functions of gojs, each of
// which was its own "imports gojs.…, but the host offers only …".
type foreignImports struct {
	mods []string
	fns  map[string][]string
}

func (f *foreignImports) add(mod, fn string) {
	if f.fns == nil {
		f.fns = map[string][]string{}
	}
	if _, ok := f.fns[mod]; !ok {
		f.mods = append(f.mods, mod)
	}
	f.fns[mod] = append(f.fns[mod], fn)
}

// foreignShown is how many of one module's imports a load error names.
const foreignShown = 3

// foreignHints says, for a module whose imports tell how the guest was
// built, what to build instead.
var foreignHints = map[string]string{
	"gojs": " (a Go program built with GOOS=js, for a browser: build a Go guest with " +
		"GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared, docs/abi.md §7)",
	"__wbindgen_placeholder__": " (a Rust crate built with wasm-bindgen, for JavaScript: export the ABI v1 " +
		"functions with #[no_mangle] pub extern \"C\" fn, as samples/wasm/rust-echo does, docs/abi.md)",
}

// problems is one problem per module: the first few imports, how many
// more, and a hint where the module tells what went wrong.
func (f *foreignImports) problems() []string {
	out := make([]string, 0, len(f.mods))
	for _, mod := range f.mods {
		fns := f.fns[mod]
		names := make([]string, 0, foreignShown)
		for i, fn := range fns {
			if i == foreignShown {
				break
			}
			names = append(names, mod+"."+fn)
		}
		list := strings.Join(names, ", ")
		if more := len(fns) - len(names); more > 0 {
			list += fmt.Sprintf(" and %d more functions of the module %s", more, mod)
		}
		out = append(out, fmt.Sprintf("imports %s, but the host offers only the functions of the modules aios and wasi_snapshot_preview1%s", list, foreignHints[mod]))
	}
	return out
}

// exportKinds splits missing (ABI exports not found as the kind they must
// be: memory a memory, the rest functions) into those the module does not
// export at all and a problem for each it exports as another kind (kindOf:
// "function", "memory", …, or "" when it does not export the name): "export
// memory is a function, want a memory" where "missing export(s) memory"
// sent the author looking for a name that is there.
func exportKinds(missing []string, kindOf func(string) string) (absent, problems []string) {
	for _, name := range missing {
		want := "function"
		if name == exportMemory {
			want = "memory"
		}
		if k := kindOf(name); k != "" && k != want {
			problems = append(problems, fmt.Sprintf("export %s is a %s, want a %s", name, k, want))
			continue
		}
		absent = append(absent, name)
	}
	return absent, problems
}

// checkABI verifies that a compiled module (of the bytes bin) exports the
// guest ABI v1 and imports nothing the host does not provide. The error
// lists everything wrong at once.
func checkABI(name string, cm wazero.CompiledModule, bin []byte) error {
	var problems, missing []string
	if _, ok := cm.ExportedMemories()[exportMemory]; !ok {
		missing = append(missing, exportMemory)
	}
	fns := cm.ExportedFunctions()
	for _, e := range guestExports {
		d, ok := fns[e.name]
		if !ok {
			if e.required {
				missing = append(missing, e.name)
			}
			continue
		}
		got := sig{d.ParamTypes(), d.ResultTypes()}
		if !sameTypes(got.params, e.sig.params) || !sameTypes(got.results, e.sig.results) {
			problems = append(problems, fmt.Sprintf("export %s has type %s, want %s", e.name, sigString(got), sigString(e.sig)))
		}
	}
	// wazero lists exported functions and memories only: the kinds of
	// the rest (a global, a table) come from the export section.
	kinds, _ := instr.ExportKinds(bin) // bin has been validated
	missing, wrongKind := exportKinds(missing, func(name string) string {
		if k, ok := kinds[name]; ok {
			return instr.KindName(k)
		}
		return ""
	})
	problems = append(wrongKind, problems...)
	if len(missing) > 0 {
		problems = append([]string{"missing export(s) " + strings.Join(missing, ", ")}, problems...)
	}
	var foreign foreignImports
	for _, d := range cm.ImportedFunctions() {
		mod, fn, _ := d.Import()
		switch mod {
		case "wasi_snapshot_preview1":
			if why := wasiImportProblem(fn, sig{d.ParamTypes(), d.ResultTypes()}); why != "" {
				problems = append(problems, why)
			}
		case "aios":
			want, ok := hostImports[fn]
			if !ok {
				known := make([]string, 0, len(hostImports))
				for k := range hostImports {
					known = append(known, k)
				}
				sort.Strings(known)
				problems = append(problems, fmt.Sprintf("imports aios.%s, which ABI v1 does not define (it has %s)", fn, strings.Join(known, ", ")))
				continue
			}
			got := sig{d.ParamTypes(), d.ResultTypes()}
			if !sameTypes(got.params, want.params) || !sameTypes(got.results, want.results) {
				problems = append(problems, fmt.Sprintf("imports aios.%s with type %s, want %s", fn, sigString(got), sigString(want)))
			}
		default:
			foreign.add(mod, fn)
		}
	}
	problems = append(problems, foreign.problems()...)
	// The host defines no memory, table, global or tag to import (wazero
	// said only "module[env] not instantiated" at instantiation; the
	// wasmtime engine's check names them).
	imports, _ := instr.Imports(bin) // bin has been validated
	for _, im := range imports {
		if im.Kind != instr.KindFunc {
			problems = append(problems, nonFuncImportProblem(im.Kind, im.Module, im.Name))
		}
	}
	return abiProblems(name, bin, problems)
}

// abiProblems is checkABI's error (nil without problems), on either
// engine. A module carrying a component's WIT (the custom section
// component-type… that `jco embed`, `wasm-tools component embed` and
// wit-bindgen write) is a component not yet made: that is said first, as
// what it lacks of ABI v1 sent its author to docs/abi.md.
func abiProblems(name string, bin []byte, problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	secs, _ := instr.CustomSections(bin) // bin has been validated
	for _, s := range secs {
		if s == "component-type" || strings.HasPrefix(s, "component-type:") {
			problems = append([]string{fmt.Sprintf("it is a core module carrying a component's WIT (custom section %q), not yet a component: "+
				"make it one with `jco new FILE -o OUT.wasm` or `wasm-tools component new FILE -o OUT.wasm` (see docs/components.md)", s)}, problems...)
			break
		}
	}
	return fmt.Errorf("%s: not an AIOS guest module (ABI v1 needs exports memory, aios_alloc, aios_register, aios_call; see docs/abi.md): %s",
		name, strings.Join(problems, "; "))
}

// startIndex is the index of bin's start function, -1 when it has none.
func startIndex(bin []byte) int64 {
	i, ok, _ := instr.StartFunction(bin) // bin has been validated
	if !ok {
		return -1
	}
	return int64(i)
}

// startFailed is the reason of a start function's failure as both engines
// give it: "start function[N] failed: <reason>", N its index in the module
// as written (wazero numbers it in the rewritten module, one past, since
// the rewrite adds the aios.tick import).
func startFailed(start int64, why string) string {
	return fmt.Sprintf("start function[%d] failed: %s", start, why)
}

// instantiateError is a failed instantiation's error: one line, wrapping
// the engine's (whose own text may go on with a wasm stack trace).
type instantiateError struct {
	msg string
	err error
}

func (e *instantiateError) Error() string { return e.msg }
func (e *instantiateError) Unwrap() error { return e.err }

// checkElements refuses a module an active element segment of which does
// not fit in its table (instrument.ElementOutside): its instantiation
// fails, as wasmtime fails it, where wazero skipped that segment and every
// one after it and ran the module with those table entries null
// (TestElementSegmentOutsideTable).
func checkElements(name string, bin []byte) error {
	if i, ok := instr.ElementOutside(bin); ok {
		return fmt.Errorf("%s: instantiate: elem[%d]: out of bounds table access (the segment reaches past the end of its table's initial size)", name, i)
	}
	return nil
}

// checkMemoryMin refuses a module whose memory starts above the memory
// limit of the provider loaded from src (pages), naming the keys that
// raise it: wazero called such a module "invalid WebAssembly module"
// ("section memory: min 5000 pages (312 Mi) over limit of 4096 pages"),
// though it is valid and the limit is the host's. Both engines use it.
func checkMemoryMin(name string, bin []byte, pages uint32, src abi.Source) error {
	min, ok, _ := instr.MemoryMin(bin) // bin has been validated
	if !ok || min <= uint64(pages) {
		return nil
	}
	size := func(p uint64) string { return fmt.Sprintf("%g MiB", float64(p)/16) }
	return fmt.Errorf("%s: its memory starts at %d pages (%s), above the memory limit of %d pages (%s) for it: raise runtimes.wasm.providers.%s.memory_limit_pages (for it alone) or runtimes.wasm.memory_limit_pages, at most 65536 (4 GiB)",
		name, min, size(min), pages, size(uint64(pages)), memoryKey(src))
}

// CheckMemoryMin is checkMemoryMin for the component loaders: name is
// what the error starts with (the component and its core module), src the
// component's source (its provider id or file stem names its key).
func CheckMemoryMin(name string, bin []byte, pages uint32, src abi.Source) error {
	return checkMemoryMin(name, bin, pages, src)
}

// memoryKey is the runtimes.wasm.providers key of the provider loaded from
// src, as messages name it: its id when the host gave one, else its file
// stem.
func memoryKey(src abi.Source) string {
	if src.ProviderID != "" {
		return src.ProviderID
	}
	return strings.TrimSuffix(filepath.Base(src.Path), filepath.Ext(src.Path))
}

// memoryLimitNote is added to the message of a crashed call whose
// instance's memory (size bytes) is past three quarters of its limit
// (pages): a guest whose memory.grow failed at the limit and that then
// trapped, or whose allocator then returned 0, was told "wasm error:
// unreachable" or "aios_alloc(11) returned 0", nothing of the host's limit
// or the key that raises it. "" below that.
func memoryLimitNote(size uint64, pages uint32, key string) string {
	if pages == 0 || size <= uint64(pages)*65536/4*3 {
		return ""
	}
	return fmt.Sprintf(" (its memory had grown to %d of its limit of %d pages, %g MiB, past which memory.grow fails: runtimes.wasm.providers.%s.memory_limit_pages, for it alone, or runtimes.wasm.memory_limit_pages raises it)",
		size/65536, pages, float64(pages)/16, key)
}
