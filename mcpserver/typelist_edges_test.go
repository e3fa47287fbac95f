package mcpserver

import (
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/registry"
)

// TestTypeListWithObjectExported: a tool whose params schema's type is a
// list holding "object" ({"type": ["object", "null"]}, which JS and Python
// tools may now declare whole) was left out of tools/list, "params schema
// has type [object null]; MCP tools take an object", though an MCP call's
// arguments are always an object, which such a schema takes. It is
// exported with type "object"; a list without "object" is still refused.
func TestTypeListWithObjectExported(t *testing.T) {
	e := &registry.Entry{Def: abi.ToolDef{Name: "t", Parameters: map[string]any{
		"type": []any{"object", "null"}, "properties": map[string]any{"q": map[string]any{"type": "string"}},
	}}, Version: semver.MustParse("1.0.0"), Provider: &registry.ProviderRecord{}}
	tool, _, err := toMCPTool(e)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := tool.InputSchema.(map[string]any)
	if in["type"] != "object" || in["properties"] == nil {
		t.Errorf("inputSchema %v, want type object and the properties", tool.InputSchema)
	}
	e.Def.Parameters = map[string]any{"type": []any{"string", "null"}}
	if _, _, err := toMCPTool(e); err == nil {
		t.Error(`params of type ["string","null"] exported`)
	}
}
