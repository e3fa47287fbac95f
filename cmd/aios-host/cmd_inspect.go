package main

import (
	"encoding/json"
	"fmt"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// runInspect describes a .wasm file without registering it: for a
// component, its WIT (rebuilt from the binary) and each tool's JSON Schema;
// for a core module, the ToolRegister its guest returns.
func runInspect(c *cli, args []string) int {
	fs := c.flags("inspect", "inspect [--json] FILE.wasm", `
Describe a WebAssembly file. A component (Component Model binary) prints its
WIT and each exported function's tool name with its input and return JSON
Schema; a core module prints the tools its guest registers. --json prints
{kind, provider, wit, tools: [{name, description, input_schema, output_schema}]}.`)
	asJSON := fs.Bool("json", false, "machine-readable output")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return c.usageError(fs, "inspect takes exactly one FILE.wasm")
	}
	b, err := readInputFile(pos[0], maxInspectBytes, "a plugin file, the default of limits.max_plugin_bytes")
	if err != nil {
		return c.fail(err)
	}
	var out any
	if component.IsComponent(b) {
		in, err := component.Inspect(c.ctx, b, pos[0])
		if err != nil {
			return c.fail(err)
		}
		if !*asJSON {
			if err := in.WriteText(c.stdout); err != nil {
				return c.fail(err)
			}
			return exitOK
		}
		out = in.JSON()
	} else {
		reg, err := wasm.Inspect(c.ctx, pos[0])
		if err != nil {
			return c.fail(err)
		}
		if !*asJSON {
			return printRegister(c, reg)
		}
		tools := make([]component.InspectTool, 0, len(reg.Tools))
		for _, t := range reg.Tools {
			tools = append(tools, component.InspectTool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters, OutputSchema: t.Returns})
		}
		out = map[string]any{"kind": "module", "provider": reg.Provider, "tools": tools}
	}
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return c.fail(err)
	}
	return exitOK
}

func printRegister(c *cli, reg *abi.ToolRegister) int {
	fmt.Fprintf(c.stdout, "core module provider %s (runtime %s)\n\n", reg.Provider.ID, reg.Provider.Runtime)
	for _, t := range reg.Tools {
		fmt.Fprintf(c.stdout, "tool %s\n", t.Name)
		if t.Description != "" {
			fmt.Fprintf(c.stdout, "  %s\n", t.Description)
		}
		b, err := json.MarshalIndent(t.Parameters, "  ", "  ")
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.stdout, "  input schema: %s\n\n", b)
	}
	return exitOK
}
