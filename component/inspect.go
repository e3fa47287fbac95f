package component

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/registry"
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
	// The grants asked for, each tool's version, what its callers need
	// and its levels, in the words inspect uses for a core module or a
	// script: a component showed no request and no version, and said
	// "requires [ReadSpace(docs)]" (TestInspectShowsComponentGrantsAndHints).
	fmt.Fprintf(w, "component provider %s (runtime %s)\n", in.Provider.ID, in.Provider.Runtime)
	if len(in.Provider.Capabilities) > 0 {
		fmt.Fprintf(w, "  requests: %s\n", strings.Join(in.Provider.Capabilities, ", "))
	}
	fmt.Fprintf(w, "\n%s\n", in.WIT)
	for _, t := range in.Tools {
		fmt.Fprintf(w, "tool %s %s\n", t.Name, toolVersion(t))
		if t.Description != "" {
			fmt.Fprintf(w, "  %s\n", t.Description)
		}
		if len(t.CapabilityRequired) > 0 {
			fmt.Fprintf(w, "  callers need: %s\n", strings.Join(t.CapabilityRequired, ", "))
		}
		if t.PermissionLevel != "" || t.LatencyClass != "" {
			fmt.Fprintf(w, "  permission level %s, latency class %s\n", orDefault(t.PermissionLevel, abi.PermissionMedium), orDefault(t.LatencyClass, abi.LatencyNormal))
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
	// Version is the tool's version as the registry gives it (a module
	// may serve several versions of a name).
	Version      string         `json:"version,omitempty"`
	Description  string         `json:"description,omitempty"`
	InputSchema  map[string]any `json:"input_schema"`
	OutputSchema map[string]any `json:"output_schema,omitempty"`
	// What the tool declares of its callers: the capabilities a caller
	// must hold, and its levels.
	CapabilityRequired []string `json:"capability_required,omitempty"`
	PermissionLevel    string   `json:"permission_level,omitempty"`
	LatencyClass       string   `json:"latency_class,omitempty"`
}

// JSON is the machine-readable form: provider, WIT and each tool's name,
// version, schemas and what it declares of its callers.
func (in *Inspection) JSON() any {
	tools := make([]InspectTool, 0, len(in.Tools))
	for _, t := range in.Tools {
		tools = append(tools, InspectTool{Name: t.Name, Version: toolVersion(t), Description: t.Description, InputSchema: t.Parameters, OutputSchema: t.Returns,
			CapabilityRequired: t.CapabilityRequired, PermissionLevel: t.PermissionLevel, LatencyClass: t.LatencyClass})
	}
	return map[string]any{"kind": "component", "provider": in.Provider, "wit": in.WIT, "tools": tools}
}

// toolVersion is t's version as the registry gives it (its default when
// the component sets none).
func toolVersion(t abi.ToolDef) string {
	if t.Version == "" {
		return registry.DefaultVersion
	}
	return t.Version
}

// orDefault is s, or def when s is empty (a level the registry defaults).
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
