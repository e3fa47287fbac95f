package component

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/wit"
)

// Inspection is what `aios-host inspect FILE.wasm` shows for a component:
// its WIT (rebuilt from the binary's types) and its tools.
type Inspection struct {
	Provider abi.ProviderInfo
	WIT      string
	Tools    []abi.ToolDef
}

// Inspect loads the component in b (name is used in errors) far enough to
// describe it: parse, link, compile and one instantiation, with the
// built-in limits (InspectWith takes the config's).
func Inspect(ctx context.Context, b []byte, name string) (*Inspection, error) {
	return InspectWith(ctx, b, name, Options{})
}

// InspectWith is Inspect with opts (its memory limits and timeouts, as
// the host loads the component; one instance, nothing cached).
func InspectWith(ctx context.Context, b []byte, name string, opts Options) (*Inspection, error) {
	opts.PoolSize, opts.CacheDir = 1, ""
	p, err := New(ctx, b, name, "", opts)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	reg := p.Describe()
	return &Inspection{Provider: reg.Provider, WIT: wit.Print(p.World()), Tools: reg.Tools}, nil
}

// WriteText prints the WIT, then each tool with its input and result schema.
func (in *Inspection) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "component provider %s (runtime %s)\n\n", in.Provider.ID, in.Provider.Runtime)
	fmt.Fprintf(w, "%s\n", in.WIT)
	for _, t := range in.Tools {
		fmt.Fprintf(w, "tool %s\n", t.Name)
		if t.Description != "" {
			fmt.Fprintf(w, "  %s\n", t.Description)
		}
		if len(t.CapabilityRequired) > 0 {
			fmt.Fprintf(w, "  requires %v\n", t.CapabilityRequired)
		}
		for _, s := range []struct {
			what string
			v    map[string]any
		}{{"input", t.Parameters}, {"returns", t.Returns}} {
			if s.v == nil {
				continue
			}
			b, err := json.MarshalIndent(s.v, "  ", "  ")
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "  %s schema: %s\n", s.what, b)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// InspectTool is one tool in the --json output.
type InspectTool struct {
	Name string `json:"name"`
	// Version is the tool's version as the registry gives it (a core
	// module's or a script's tools; a module may serve several versions
	// of a name).
	Version      string         `json:"version,omitempty"`
	Description  string         `json:"description,omitempty"`
	InputSchema  map[string]any `json:"input_schema"`
	OutputSchema map[string]any `json:"output_schema,omitempty"`
	// What the tool declares of its callers (a core module's or a
	// script's): the capabilities a caller must hold, and its levels.
	CapabilityRequired []string `json:"capability_required,omitempty"`
	PermissionLevel    string   `json:"permission_level,omitempty"`
	LatencyClass       string   `json:"latency_class,omitempty"`
}

// JSON is the machine-readable form: provider, WIT and each tool's name and
// input schema.
func (in *Inspection) JSON() any {
	tools := make([]InspectTool, 0, len(in.Tools))
	for _, t := range in.Tools {
		tools = append(tools, InspectTool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters, OutputSchema: t.Returns})
	}
	return map[string]any{"kind": "component", "provider": in.Provider, "wit": in.WIT, "tools": tools}
}
