package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/registry"
)

// TestSeedFromMCPTool: seed 000 §10.5's from_mcp_tool, field by
// field, for a tool of a local stdio server (§10.4: "Capability: ... None
// for local stdio servers"): name mcp-{server}-{tool}, the description,
// parameters straight from inputSchema, no return schema (the MCP tool
// declares no outputSchema), no capability, version 1.0.0 (the registry's
// default for a definition without one), not deprecated, tags ["mcp",
// server], not idempotent, latency slow.
func TestSeedFromMCPTool(t *testing.T) {
	var tool mcpsdk.Tool
	if err := json.Unmarshal([]byte(`{"name":"read_file","description":"Read a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`), &tool); err != nil {
		t.Fatal(err)
	}
	d, err := importTool("filesystem", &tool, "", false)
	if err != nil {
		t.Fatal(err)
	}
	wantParams := map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}
	if d.Name != "mcp-filesystem-read_file" || d.Description != "Read a file" || !reflect.DeepEqual(d.Parameters, wantParams) {
		t.Errorf("name, description, parameters: %q %q %#v", d.Name, d.Description, d.Parameters)
	}
	if d.Returns != nil || d.CapabilityRequired != nil || d.Deprecated || d.Deprecation != nil {
		t.Errorf("returns %v, capability_required %v, deprecated %v %v: want none", d.Returns, d.CapabilityRequired, d.Deprecated, d.Deprecation)
	}
	if d.Version != "" || registry.DefaultVersion != "1.0.0" {
		t.Errorf("version %q (default %s): want the 1.0.0 default", d.Version, registry.DefaultVersion)
	}
	if !reflect.DeepEqual(d.Tags, []string{"mcp", "filesystem"}) || d.Idempotent || d.LatencyClass != abi.LatencySlow {
		t.Errorf("tags %v, idempotent %v, latency %q: want [mcp filesystem], false, slow", d.Tags, d.Idempotent, d.LatencyClass)
	}
}
