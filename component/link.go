package component

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aios-host/aios-host/component/binary"
	"github.com/aios-host/aios-host/wit"
)

// The linker evaluates a component's definitions in order, building the
// index spaces, and produces a plan: the core modules to instantiate with
// their wiring, the host functions to lower, and the exported functions.

type typeVal struct {
	val      *wit.Type
	fn       *wit.Func
	inst     *instType
	resource bool
	res      *wit.Resource // resource types: name and owner interface
	other    string        // component / core types kept opaque
}

type instType struct {
	funcs map[string]*wit.Func
	types map[string]*typeVal
	order []string
}

// coreRef is an item of a core instance export, or a lowered host function.
type coreRef struct {
	inst  int // core instance index (plan-wide); -1 for a lowered function
	name  string
	lower int
}

type optsPlan struct {
	enc        binary.StringEncoding
	memory     *coreRef
	realloc    *coreRef
	postReturn *coreRef
}

type funcVal struct {
	wf *wit.Func
	// imported function: the import's interface name ("" for a top-level function) and function name.
	imported   bool
	iface, fun string
	// lifted function
	lift *coreRef
	opts optsPlan
}

type instVal struct {
	funcs map[string]*funcVal
	types map[string]*typeVal
	insts map[string]*instVal
	order []string
}

type coreInstPlan struct {
	module int // -1 for an inline bag
	args   map[string]int
	items  map[string]coreRef
	where  string
}

type lowerPlan struct {
	fn      *funcVal
	opts    optsPlan
	where   string
	builtin string // a canon built-in (context.get, ...) instead of a function
	slot    uint32 // context.get/set slot
}

type exportPlan struct {
	iface string // "" for a top-level function export
	name  string
	fn    *funcVal
}

// ifaceInfo is an imported or exported interface (or a top-level function
// when name is "" and funcs has one entry), for printing the component's WIT.
type ifaceInfo struct {
	typ   *namedType // a top-level type export
	name  string
	funcs []*wit.Func
	types []namedType
}

type namedType struct {
	name string
	t    *wit.Type
}

type plan struct {
	witImports []ifaceInfo
	witExports []ifaceInfo
	modules    [][]byte
	coreInsts  []coreInstPlan
	lowers     []lowerPlan
	exports    []exportPlan
	imports    []string // names of the component's imports
}

type compVal struct {
	c      *binary.Component
	parent *frame
}

type frame struct {
	parent     *frame
	p          *plan
	nested     bool
	args       map[string]any
	exports    *instVal
	types      []*typeVal
	funcs      []*funcVal
	insts      []*instVal
	comps      []compVal
	modules    []int
	coreInsts  []int
	coreFuncs  []coreRef
	coreMems   []coreRef
	coreTables []coreRef
	coreGlobs  []coreRef
	// the names of the component's imports and of its exports, each
	// strongly-unique (uniqueNames)
	importNames, exportNames uniqueNames
}

// uniqueNames holds the names of one scope: a component's imports, its
// exports, an instance's exports, an instance type's declarations. The
// Component Model requires them to be strongly-unique (Explainer.md, "Name
// Uniqueness"; wasmparser refuses the binary): two names may not be equal
// once lowercased and stripped of an annotation other than [constructor]
// ([method]r.r and [static]r.r count as r). The linker kept the last of
// two equal names of an inline instance: the interface it was exported as
// had two tools calling one function, the other lost.
type uniqueNames map[string]string

func (u *uniqueNames) add(what, name string) error {
	if *u == nil {
		*u = uniqueNames{}
	}
	k := strongName(name)
	if prev, ok := (*u)[k]; ok {
		if prev == name {
			return fmt.Errorf("%s name %q is not unique: it is given twice", what, name)
		}
		return fmt.Errorf("%s name %q is not unique: it is the earlier %q but for case or an annotation", what, name, prev)
	}
	(*u)[k] = name
	return nil
}

// strongName is name as strong uniqueness compares it.
func strongName(name string) string {
	s := strings.ToLower(name)
	if tag, rest, ok := strings.Cut(strings.TrimPrefix(s, "["), "]"); ok && strings.HasPrefix(s, "[") && tag != "constructor" {
		if r, fn, ok := strings.Cut(rest, "."); ok && r == fn && (tag == "method" || tag == "static") {
			return r
		}
		return rest
	}
	return s
}

func newInstVal() *instVal {
	return &instVal{funcs: map[string]*funcVal{}, types: map[string]*typeVal{}, insts: map[string]*instVal{}}
}

func link(c *binary.Component) (*plan, error) {
	p := &plan{}
	f := &frame{p: p, exports: newInstVal()}
	if err := f.eval(c); err != nil {
		return nil, err
	}
	return p, nil
}

func (f *frame) fail(d *binary.Def, format string, args ...any) error {
	return fmt.Errorf("component %s: %s", d.Where, fmt.Sprintf(format, args...))
}

func (f *frame) eval(c *binary.Component) error {
	for i := range c.Defs {
		d := &c.Defs[i]
		var err error
		switch d.Kind {
		case binary.DefCustom, binary.DefCoreType:
		case binary.DefCoreModule:
			f.p.modules = append(f.p.modules, d.CoreModule)
			f.modules = append(f.modules, len(f.p.modules)-1)
		case binary.DefComponent:
			f.comps = append(f.comps, compVal{c: d.Component, parent: f})
		case binary.DefCoreInstance:
			err = f.coreInstance(d)
		case binary.DefInstance:
			err = f.instance(d)
		case binary.DefAlias:
			err = f.alias(d, d.Alias)
		case binary.DefType:
			var t *typeVal
			t, err = f.buildType(d.Type, &scope{f: f})
			if err == nil {
				f.types = append(f.types, t)
			}
		case binary.DefCanon:
			err = f.canon(d)
		case binary.DefImport:
			err = f.importDef(d)
		case binary.DefExport:
			err = f.export(d)
		default:
			err = f.fail(d, "%s definitions are not supported", d.Kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func idx[T any](f *frame, d *binary.Def, space []T, i uint32, what string) (T, error) {
	var zero T
	if int(i) >= len(space) {
		return zero, f.fail(d, "%s index %d out of range (%d defined)", what, i, len(space))
	}
	return space[i], nil
}

func (f *frame) coreInstance(d *binary.Def) error {
	ci := d.CoreInstance
	pl := coreInstPlan{module: -1, where: d.Where}
	if ci.Instantiate {
		m, err := idx(f, d, f.modules, ci.Module, "core module")
		if err != nil {
			return err
		}
		pl.module = m
		pl.args = map[string]int{}
		for _, a := range ci.Args {
			k, err := idx(f, d, f.coreInsts, a.Instance, "core instance")
			if err != nil {
				return err
			}
			if _, dup := pl.args[a.Name]; dup { // the last one was kept
				return f.fail(d, "core instantiation argument %q is given twice", a.Name)
			}
			pl.args[a.Name] = k
		}
	} else {
		pl.items = map[string]coreRef{}
		for _, e := range ci.Exports {
			var space []coreRef
			switch e.Sort {
			case binary.CSFunc:
				space = f.coreFuncs
			case binary.CSMemory:
				space = f.coreMems
			case binary.CSTable:
				space = f.coreTables
			case binary.CSGlobal:
				space = f.coreGlobs
			default:
				return f.fail(d, "inline export %q of %s is not supported", e.Name, e.Sort)
			}
			r, err := idx(f, d, space, e.Idx, e.Sort.String())
			if err != nil {
				return err
			}
			if _, dup := pl.items[e.Name]; dup { // the last one was kept
				return f.fail(d, "core instance export name %q is given twice", e.Name)
			}
			pl.items[e.Name] = r
		}
	}
	f.p.coreInsts = append(f.p.coreInsts, pl)
	f.coreInsts = append(f.coreInsts, len(f.p.coreInsts)-1)
	return nil
}

func (f *frame) coreExport(d *binary.Def, inst uint32, name string) (coreRef, error) {
	k, err := idx(f, d, f.coreInsts, inst, "core instance")
	if err != nil {
		return coreRef{}, err
	}
	pl := &f.p.coreInsts[k]
	if pl.module < 0 {
		r, ok := pl.items[name]
		if !ok {
			return coreRef{}, f.fail(d, "core instance %d has no export %q", inst, name)
		}
		return r, nil
	}
	return coreRef{inst: k, name: name}, nil
}

func (f *frame) alias(d *binary.Def, a *binary.Alias) error {
	switch a.Kind {
	case binary.AliasCoreExport:
		r, err := f.coreExport(d, a.Instance, a.Name)
		if err != nil {
			return err
		}
		switch a.CoreSort {
		case binary.CSFunc:
			f.coreFuncs = append(f.coreFuncs, r)
		case binary.CSMemory:
			if len(f.coreMems) > 0 && f.coreMems[0] != r {
				return f.fail(d, "multiple memories are not supported (second memory %q)", a.Name)
			}
			f.coreMems = append(f.coreMems, r)
		case binary.CSTable:
			f.coreTables = append(f.coreTables, r)
		case binary.CSGlobal:
			f.coreGlobs = append(f.coreGlobs, r)
		default:
			return f.fail(d, "alias of %s is not supported", a.CoreSort)
		}
	case binary.AliasExport:
		in, err := idx(f, d, f.insts, a.Instance, "instance")
		if err != nil {
			return err
		}
		switch a.Sort {
		case binary.SortFunc:
			fn, ok := in.funcs[a.Name]
			if !ok {
				return f.fail(d, "instance %d has no function %q", a.Instance, a.Name)
			}
			f.funcs = append(f.funcs, fn)
		case binary.SortType:
			t, ok := in.types[a.Name]
			if !ok {
				return f.fail(d, "instance %d has no type %q", a.Instance, a.Name)
			}
			f.types = append(f.types, t)
		case binary.SortInstance:
			x, ok := in.insts[a.Name]
			if !ok {
				return f.fail(d, "instance %d has no instance %q", a.Instance, a.Name)
			}
			f.insts = append(f.insts, x)
		default:
			return f.fail(d, "alias of %s exports is not supported", sortName(a.Sort, a.CoreSort))
		}
	case binary.AliasOuter:
		t := f
		for i := uint32(0); i < a.Count; i++ {
			if t.parent == nil {
				return f.fail(d, "outer alias count %d beyond the outermost component", a.Count)
			}
			t = t.parent
		}
		switch a.Sort {
		case binary.SortType:
			x, err := idx(f, d, t.types, a.Idx, "type")
			if err != nil {
				return err
			}
			f.types = append(f.types, x)
		case binary.SortComponent:
			x, err := idx(f, d, t.comps, a.Idx, "component")
			if err != nil {
				return err
			}
			f.comps = append(f.comps, x)
		case binary.SortCore:
			if a.CoreSort != binary.CSModule {
				return f.fail(d, "outer alias of %s is not supported", a.CoreSort)
			}
			x, err := idx(f, d, t.modules, a.Idx, "core module")
			if err != nil {
				return err
			}
			f.modules = append(f.modules, x)
		default:
			return f.fail(d, "outer alias of %s is not supported", sortName(a.Sort, a.CoreSort))
		}
	}
	return nil
}

func (f *frame) canonOpts(d *binary.Def, o binary.Options) (optsPlan, error) {
	var op optsPlan
	op.enc = o.Encoding
	if o.Async || o.Callback != nil {
		return op, f.fail(d, "async canonical option is not supported")
	}
	get := func(i *uint32, space []coreRef, what string) (*coreRef, error) {
		if i == nil {
			return nil, nil
		}
		r, err := idx(f, d, space, *i, what)
		return &r, err
	}
	var err error
	if op.memory, err = get(o.Memory, f.coreMems, "core memory"); err != nil {
		return op, err
	}
	if op.realloc, err = get(o.Realloc, f.coreFuncs, "core func (realloc)"); err != nil {
		return op, err
	}
	if op.postReturn, err = get(o.PostReturn, f.coreFuncs, "core func (post-return)"); err != nil {
		return op, err
	}
	if op.realloc != nil && op.memory == nil {
		// canonopt validation; without it lowering a value called the
		// realloc and then failed on the missing memory.
		return op, f.fail(d, "canonical option realloc requires the memory option")
	}
	return op, nil
}

func (f *frame) canon(d *binary.Def) error {
	c := d.Canon
	switch c.Op {
	case binary.CanonLift:
		core, err := idx(f, d, f.coreFuncs, c.Func, "core func")
		if err != nil {
			return err
		}
		t, err := idx(f, d, f.types, c.Type, "type")
		if err != nil {
			return err
		}
		if t.fn == nil {
			return f.fail(d, "canon lift type %d is not a function type", c.Type)
		}
		if t.fn.Async {
			return f.fail(d, "async lift is not supported")
		}
		op, err := f.canonOpts(d, c.Opts)
		if err != nil {
			return err
		}
		f.funcs = append(f.funcs, &funcVal{wf: t.fn, lift: &core, opts: op})
	case binary.CanonLower:
		fn, err := idx(f, d, f.funcs, c.Func, "func")
		if err != nil {
			return err
		}
		if !fn.imported && fn.lift == nil {
			return f.fail(d, "canon lower of a function that is neither imported nor lifted")
		}
		op, err := f.canonOpts(d, c.Opts)
		if err != nil {
			return err
		}
		if op.postReturn != nil {
			return f.fail(d, "canonical option post-return is only allowed on canon lift")
		}
		f.p.lowers = append(f.p.lowers, lowerPlan{fn: fn, opts: op, where: d.Where})
		f.coreFuncs = append(f.coreFuncs, coreRef{inst: -1, lower: len(f.p.lowers) - 1})
	case binary.CanonResourceDrop:
		// Dropping a handle to a host resource (WASI streams, descriptors).
		t, err := idx(f, d, f.types, c.Type, "type")
		if err != nil {
			return err
		}
		if !t.resource || t.res == nil || t.res.Owner == "" {
			return f.fail(d, "canon resource.drop of a component-defined resource: resources are not supported at run time")
		}
		fn := &funcVal{imported: true, iface: t.res.Owner, fun: "[resource-drop]" + t.res.Name,
			wf: &wit.Func{Name: "[resource-drop]" + t.res.Name, Params: []wit.Param{{Name: "self", Type: &wit.Type{Kind: wit.KindOwn, Resource: t.res}}}}}
		f.p.lowers = append(f.p.lowers, lowerPlan{fn: fn, where: d.Where})
		f.coreFuncs = append(f.coreFuncs, coreRef{inst: -1, lower: len(f.p.lowers) - 1})
	case binary.CanonResourceNew, binary.CanonResourceRep, binary.CanonResourceDropAs:
		return f.fail(d, "canon %s: resources are not supported at run time", c.Name)
	default:
		if _, ok := builtinSigs[c.Name]; !ok {
			return f.fail(d, "canon %s: async / concurrency built-ins are not supported", c.Name)
		}
		// Built-ins a synchronous guest runtime imports (and mostly never
		// calls): see builtins.go.
		f.p.lowers = append(f.p.lowers, lowerPlan{builtin: c.Name, slot: c.Type, where: d.Where})
		f.coreFuncs = append(f.coreFuncs, coreRef{inst: -1, lower: len(f.p.lowers) - 1})
	}
	return nil
}

func (f *frame) importDef(d *binary.Def) error {
	im := d.Import
	if err := wit.ValidateExternName(im.Name, true); err != nil {
		return f.fail(d, "import %v", err)
	}
	if err := f.importNames.add("import", im.Name); err != nil {
		return f.fail(d, "%v", err)
	}
	if f.nested {
		a, ok := f.args[im.Name]
		if !ok {
			return f.fail(d, "nested component import %q has no argument", im.Name)
		}
		// The argument goes to the index space of the import's sort:
		// one of another sort went to its own, and shifted the indices
		// of every later item of both (TestNestedArgumentSort).
		var got binary.Sort
		switch a.(type) {
		case *funcVal:
			got = binary.SortFunc
		case *typeVal:
			got = binary.SortType
		case *instVal:
			got = binary.SortInstance
		case compVal:
			got = binary.SortComponent
		default:
			return f.fail(d, "import %q: unsupported argument", im.Name)
		}
		if got != im.Extern.Sort {
			return f.fail(d, "nested component import %q is of sort %s, but the instantiation gives it an item of sort %s", im.Name, im.Extern.Sort, got)
		}
		switch x := a.(type) {
		case *funcVal:
			f.funcs = append(f.funcs, x)
		case *typeVal:
			f.types = append(f.types, x)
		case *instVal:
			f.insts = append(f.insts, x)
		case compVal:
			f.comps = append(f.comps, x)
		}
		return nil
	}
	f.p.imports = append(f.p.imports, im.Name)
	switch im.Extern.Sort {
	case binary.SortInstance:
		t, err := idx(f, d, f.types, im.Extern.Idx, "type")
		if err != nil {
			return err
		}
		if t.inst == nil {
			return f.fail(d, "import %q: type %d is not an instance type", im.Name, im.Extern.Idx)
		}
		in := newInstVal()
		for _, n := range t.inst.order {
			if fn, ok := t.inst.funcs[n]; ok {
				in.funcs[n] = &funcVal{wf: fn, imported: true, iface: im.Name, fun: n}
			}
		}
		for n, tv := range t.inst.types {
			in.types[n] = tv
			if tv.res != nil && tv.res.Owner == "" {
				tv.res.Owner = im.Name
			}
		}
		in.order = t.inst.order
		f.insts = append(f.insts, in)
		info := ifaceInfo{name: im.Name}
		for _, n := range t.inst.order {
			if fn, ok := t.inst.funcs[n]; ok {
				info.funcs = append(info.funcs, fn)
			}
		}
		info.types = namedTypes(t.inst.types)
		f.p.witImports = append(f.p.witImports, info)
	case binary.SortFunc:
		t, err := idx(f, d, f.types, im.Extern.Idx, "type")
		if err != nil {
			return err
		}
		if t.fn == nil {
			return f.fail(d, "import %q: type %d is not a function type", im.Name, im.Extern.Idx)
		}
		fn := *t.fn
		fn.Name = im.Name
		f.funcs = append(f.funcs, &funcVal{wf: &fn, imported: true, fun: im.Name})
		f.p.witImports = append(f.p.witImports, ifaceInfo{funcs: []*wit.Func{&fn}})
	case binary.SortType:
		if im.Extern.SubRes {
			return f.fail(d, "import %q: imported resource types are not supported at run time", im.Name)
		}
		t, err := idx(f, d, f.types, im.Extern.Idx, "type")
		if err != nil {
			return err
		}
		f.types = append(f.types, t)
		nameType(t, im.Name, "")
		if t.val != nil {
			f.p.witImports = append(f.p.witImports, ifaceInfo{typ: &namedType{name: im.Name, t: t.val}})
		}
	default:
		return f.fail(d, "import %q of a %s is not supported", im.Name, sortName(im.Extern.Sort, binary.CSModule)) // an extern of sort core is a core module
	}
	return nil
}

func (f *frame) ref(d *binary.Def, r binary.SortIdx) (any, error) {
	switch r.Sort {
	case binary.SortFunc:
		return idx(f, d, f.funcs, r.Idx, "func")
	case binary.SortType:
		return idx(f, d, f.types, r.Idx, "type")
	case binary.SortInstance:
		return idx(f, d, f.insts, r.Idx, "instance")
	case binary.SortComponent:
		return idx(f, d, f.comps, r.Idx, "component")
	}
	return nil, f.fail(d, "reference to a %s is not supported", sortName(r.Sort, r.CoreSort))
}

// sortName names sort s in a message, a core one by its core sort cs
// ("core module"): Sort's String says "core" alone, and refusals read
// 'import "m" of a core is not supported' (TestCoreModuleNamedInRefusals).
func sortName(s binary.Sort, cs binary.CoreSort) string {
	if s == binary.SortCore {
		return cs.String()
	}
	return s.String()
}

func (f *frame) instance(d *binary.Def) error {
	in := d.Instance
	if !in.Instantiate {
		iv := newInstVal()
		var names uniqueNames
		for _, e := range in.Exports {
			if err := wit.ValidateExternName(e.Name, false); err != nil {
				return f.fail(d, "instance export %v", err)
			}
			if err := names.add("instance export", e.Name); err != nil {
				return f.fail(d, "%v", err)
			}
			v, err := f.ref(d, e.Ref)
			if err != nil {
				return err
			}
			if err := iv.add(e.Name, v); err != nil {
				return f.fail(d, "%v", err)
			}
		}
		f.insts = append(f.insts, iv)
		return nil
	}
	cv, err := idx(f, d, f.comps, in.Component, "component")
	if err != nil {
		return err
	}
	args := map[string]any{}
	for _, a := range in.Args {
		v, err := f.ref(d, a.Ref)
		if err != nil {
			return err
		}
		if _, dup := args[a.Name]; dup { // the last one was kept
			return f.fail(d, "instantiation argument %q is given twice", a.Name)
		}
		args[a.Name] = v
	}
	nf := &frame{parent: cv.parent, p: f.p, nested: true, args: args, exports: newInstVal()}
	if err := nf.eval(cv.c); err != nil {
		return fmt.Errorf("instantiating nested component (%s): %w", d.Where, err)
	}
	f.insts = append(f.insts, nf.exports)
	return nil
}

func (iv *instVal) add(name string, v any) error {
	switch x := v.(type) {
	case *funcVal:
		iv.funcs[name] = x
	case *typeVal:
		iv.types[name] = x
	case *instVal:
		iv.insts[name] = x
	default:
		return fmt.Errorf("export %q: unsupported sort", name)
	}
	iv.order = append(iv.order, name)
	return nil
}

func (f *frame) export(d *binary.Def) error {
	e := d.Export
	if err := wit.ValidateExternName(e.Name, false); err != nil {
		return f.fail(d, "export %v", err)
	}
	if err := f.exportNames.add("export", e.Name); err != nil {
		return f.fail(d, "%v", err)
	}
	if e.Extern != nil && e.Extern.Sort != e.Ref.Sort {
		return f.fail(d, "export %q: the %s is ascribed a type of sort %s", e.Name, e.Ref.Sort, e.Extern.Sort)
	}
	v, err := f.ref(d, e.Ref)
	if err != nil {
		return err
	}
	switch x := v.(type) {
	case *funcVal:
		if !f.nested && x.lift == nil {
			// As for a function of an exported interface: its tool had
			// no core function, and each call failed with a nil-pointer
			// error (TestReexportedImport).
			return f.fail(d, "export %q is not a lifted function (a component's imports cannot be served as its tools)", e.Name)
		}
		fn := *x
		wf := *x.wf
		if e.Extern != nil && e.Extern.Sort == binary.SortFunc {
			t, err := idx(f, d, f.types, e.Extern.Idx, "type")
			if err != nil {
				return err
			}
			if t.fn == nil {
				return f.fail(d, "export %q: ascribed type %d is not a function type", e.Name, e.Extern.Idx)
			}
			if why := funcMismatch(x.wf, t.fn); why != "" {
				return f.fail(d, "export %q: the ascribed type %s does not match the function's type %s: %s", e.Name, signature(t.fn), signature(x.wf), why)
			}
			wf = *t.fn
		}
		wf.Name = e.Name
		if !f.nested {
			if why := unnamedIn(&wf); why != "" {
				return f.fail(d, "export %q: %s is neither imported nor exported by name before it (the Component Model requires an exported function's records, variants, enums and flags to be; wasmtime refuses such a component: \"func not valid to be used as export\")", e.Name, why)
			}
		}
		fn.wf = &wf
		f.funcs = append(f.funcs, &fn)
		v = &fn
		if !f.nested {
			f.p.exports = append(f.p.exports, exportPlan{name: e.Name, fn: &fn})
			f.p.witExports = append(f.p.witExports, ifaceInfo{funcs: []*wit.Func{&wf}})
		}
	case *typeVal:
		nameType(x, e.Name, "")
		f.types = append(f.types, x)
		if !f.nested && x.val != nil {
			f.p.witExports = append(f.p.witExports, ifaceInfo{typ: &namedType{name: e.Name, t: x.val}})
		}
	case *instVal:
		f.insts = append(f.insts, x)
		if !f.nested {
			for _, n := range x.order {
				if fn, ok := x.funcs[n]; ok {
					if fn.lift == nil {
						return f.fail(d, "export %q function %q is not a lifted function", e.Name, n)
					}
					f.p.exports = append(f.p.exports, exportPlan{iface: e.Name, name: n, fn: fn})
				}
			}
			for n, t := range x.types {
				nameType(t, n, e.Name)
			}
			info := ifaceInfo{name: e.Name, types: namedTypes(x.types)}
			for _, n := range x.order {
				if fn, ok := x.funcs[n]; ok {
					// The lifted function's own name may be empty (an
					// inline instance exports it under n): print it as n.
					wf := *fn.wf
					wf.Name = n
					info.funcs = append(info.funcs, &wf)
				}
			}
			f.p.witExports = append(f.p.witExports, info)
		}
	case compVal:
		return f.fail(d, "export %q: exporting components is not supported", e.Name)
	}
	if f.nested {
		if err := f.exports.add(e.Name, v); err != nil {
			return f.fail(d, "%v", err)
		}
	}
	return nil
}

// unnamedIn names the first record, variant, enum or flags type in f's
// parameters or result that has no name (it was never imported or exported
// as a type), "" when there is none. wasmparser refuses to export such a
// function (its type_named_valtype), so wasmtime did not load a component
// that wazero ran. A named type's own parts were checked when it was named.
func unnamedIn(f *wit.Func) string {
	// Types share parts (a doubling chain of tuples is 2^64 parts in a
	// few hundred bytes): each part is walked once.
	seen := map[*wit.Type]bool{}
	var walk func(t *wit.Type, depth int) bool
	walk = func(t *wit.Type, depth int) bool {
		if t == nil || depth > 10_000 || seen[t] {
			return true
		}
		seen[t] = true
		switch t.Kind {
		case wit.KindRecord, wit.KindVariant, wit.KindEnum, wit.KindFlags:
			return t.Name != ""
		case wit.KindList, wit.KindOption:
			return walk(t.Elem, depth+1)
		case wit.KindResult:
			return walk(t.Ok, depth+1) && walk(t.Err, depth+1)
		case wit.KindTuple:
			for _, e := range t.Tuple {
				if !walk(e, depth+1) {
					return false
				}
			}
		}
		return true
	}
	for _, p := range f.Params {
		if !walk(p.Type, 0) {
			return fmt.Sprintf("the type of parameter %s (%s)", p.Name, shortType(p.Type))
		}
	}
	if !walk(f.Result, 0) {
		return fmt.Sprintf("its result type (%s)", shortType(f.Result))
	}
	return ""
}

// funcMismatch says how the type ascribed to an exported function differs
// from the function's own type ("" when they are equal): the Component
// Model requires them to be equal (its subtyping of function types;
// wasmparser refuses the binary). The linker compared the number of
// parameters alone and then used the ascribed type, so a u32 function
// exported as s32 or string took and returned what the ascription said
// (TestExportAscriptionChecked). Type names and docs do not count
// (wit-component ascribes the exported, named copies of the types); labels
// do.
func funcMismatch(have, want *wit.Func) string {
	if have.Async != want.Async {
		return "one is async"
	}
	if len(have.Params) != len(want.Params) {
		return fmt.Sprintf("%d parameters against %d", len(want.Params), len(have.Params))
	}
	eq := typeEq{}
	for i, p := range want.Params {
		if p.Name != have.Params[i].Name {
			return fmt.Sprintf("parameter %d is %q, not %q", i, p.Name, have.Params[i].Name)
		}
		if !eq.same(have.Params[i].Type, p.Type) {
			return fmt.Sprintf("parameter %s differs", p.Name)
		}
	}
	if !eq.same(have.Result, want.Result) {
		return "the result differs"
	}
	return ""
}

// typeEq compares value types by structure, remembering the pairs found
// equal: types share parts by index, and written out as trees they can be
// exponentially larger (wit.MaxFuncTreeSize).
type typeEq map[[2]*wit.Type]bool

func (eq typeEq) same(a, b *wit.Type) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Kind != b.Kind {
		return false
	}
	if eq[[2]*wit.Type{a, b}] {
		return true
	}
	ok := true
	switch a.Kind {
	case wit.KindList, wit.KindOption, wit.KindStream, wit.KindFuture:
		ok = a.Len == b.Len && eq.same(a.Elem, b.Elem)
	case wit.KindMap:
		ok = eq.same(a.Key, b.Key) && eq.same(a.Elem, b.Elem)
	case wit.KindRecord:
		ok = len(a.Fields) == len(b.Fields)
		for i := 0; ok && i < len(a.Fields); i++ {
			ok = a.Fields[i].Name == b.Fields[i].Name && eq.same(a.Fields[i].Type, b.Fields[i].Type)
		}
	case wit.KindVariant:
		ok = len(a.Cases) == len(b.Cases)
		for i := 0; ok && i < len(a.Cases); i++ {
			ok = a.Cases[i].Name == b.Cases[i].Name && eq.same(a.Cases[i].Type, b.Cases[i].Type)
		}
	case wit.KindEnum, wit.KindFlags:
		ok = slices.Equal(a.Names, b.Names)
	case wit.KindTuple:
		ok = len(a.Tuple) == len(b.Tuple)
		for i := 0; ok && i < len(a.Tuple); i++ {
			ok = eq.same(a.Tuple[i], b.Tuple[i])
		}
	case wit.KindResult:
		ok = eq.same(a.Ok, b.Ok) && eq.same(a.Err, b.Err)
	case wit.KindOwn, wit.KindBorrow:
		// Handles in exported functions are refused when they are
		// compiled; which resource is not followed here.
	}
	if ok {
		eq[[2]*wit.Type{a, b}] = true
	}
	return ok
}

// nameType gives a type exported under a name its WIT name, when it is a
// kind that WIT names (records, variants, enums, flags) and has none yet.
func nameType(t *typeVal, name, owner string) {
	if t == nil || t.val == nil || t.val.Name != "" {
		return
	}
	switch t.val.Kind {
	case wit.KindRecord, wit.KindVariant, wit.KindEnum, wit.KindFlags:
		t.val.Name = name
		if t.val.Owner == "" {
			t.val.Owner = owner
		}
	}
}

func namedTypes(m map[string]*typeVal) []namedType {
	var out []namedType
	for n, t := range m {
		switch {
		case t.val != nil:
			out = append(out, namedType{name: n, t: t.val})
		case t.res != nil:
			// A resource definition, as the wit model writes it.
			out = append(out, namedType{name: n, t: &wit.Type{Kind: wit.KindOwn, Name: n, Resource: t.res}})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
