//go:build wasmtime

package component

import (
	"fmt"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component/binary"
	"github.com/aios-host/aios-host/component/cabi"
	"github.com/aios-host/aios-host/wit"
)

// EnginePlan is what another execution engine (component/wasmtime) needs to
// serve a component as a provider: the same ToolRegister this package would
// build, and for each tool the export it calls and its WIT signature. It is
// computed from the binary alone (parse and link, no compilation or
// instantiation), so it does not depend on the WASI subset this package's
// own engine offers.
type EnginePlan struct {
	Register abi.ToolRegister
	Tools    []EngineTool
	// Imports are the component's import names (for error messages).
	Imports []string
	// CoreModules are the modules of its core instances, by instance index
	// (nil for an instance of exports): the engine checks their memories
	// against its limit (wasm.CheckMemoryMin) with the words wazero's
	// loader uses.
	CoreModules [][]byte
}

// EngineTool is one tool of an EnginePlan.
type EngineTool struct {
	Def abi.ToolDef
	// Interface is the exported interface instance ("" for a top-level
	// function export); Func is the function's name in it.
	Interface, Func string
	WIT             *wit.Func
	// JSONTool marks f(params-json: string) -> result<string, string>.
	JSONTool bool
}

// PlanForEngine describes the component in b the way New would, without
// running it. name is used in errors and the default provider id.
func PlanForEngine(b []byte, name, providerID string) (_ *EnginePlan, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("component %s: internal error while planning: %v", name, r)
		}
	}()
	c, err := binary.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("component %s: %w", name, err)
	}
	pl, err := link(c)
	if err == nil {
		err = notWITPackage(b, pl)
	}
	if err != nil {
		return nil, fmt.Errorf("component %s: %w", name, err)
	}
	p := &Provider{path: name, plan: pl, tools: map[string]*tool{}}
	if p.meta, err = readMeta(pl.modules); err != nil {
		return nil, fmt.Errorf("component %s: %w", name, err)
	}
	if err := p.buildTools(cabi.NewCompiler(), providerID); err != nil {
		return nil, fmt.Errorf("component %s: %w", name, err)
	}
	out := &EnginePlan{Register: p.reg, Imports: append([]string(nil), pl.imports...), CoreModules: make([][]byte, len(pl.coreInsts))}
	for k, ci := range pl.coreInsts {
		if ci.module >= 0 {
			out.CoreModules[k] = pl.modules[ci.module]
		}
	}
	for _, t := range p.order {
		out.Tools = append(out.Tools, EngineTool{Def: t.def, Interface: t.exp.iface, Func: t.exp.name, WIT: t.witFn, JSONTool: t.jsonTool})
	}
	return out, nil
}
