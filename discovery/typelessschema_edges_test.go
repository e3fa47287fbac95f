package discovery

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/schema"
)

// TestTypelessInputSchemaTakesAnObject: a skill's input_schema is a tool's
// parameters, always an object (a call's arguments). A card giving
// {"properties": …} or {"required": […]} without "type" (a JSON Schema
// then takes any value) registered its tool with that schema, so a call
// whose arguments were "hello" or 42 passed validation and went to the
// adapter as its params — as the MCP import found of such an
// inputSchema. The skill's schema takes an object now, as
// a skill without input_schema does.
func TestTypelessInputSchemaTakesAnObject(t *testing.T) {
	c, err := ParseCard([]byte(`{"adapter": {"id": "org.example.a", "name": "A", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "endpoints": {"rpc": "unix:///run/a.sock"}, "skills": [
    {"id": "open_url", "name": "打开网址", "permission_level": "medium", "input_schema": {"properties": {"url": {"type": "string"}}}},
    {"id": "search", "name": "搜索", "permission_level": "medium", "input_schema": {}},
    {"id": "extract", "name": "提取", "permission_level": "low"}]}`), "plugins/a/adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range c.Tools() {
		s, err := schema.Compile(d.Name, d.Parameters)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if err := s.Validate(map[string]any{"url": "https://example.com"}); err != nil {
			t.Errorf("%s: an object is refused: %v", d.Name, err)
		}
		for _, bad := range []any{"hello", int64(42), []any{"x"}} {
			if err := s.Validate(bad); err == nil || !strings.Contains(err.Error(), "object") {
				t.Errorf("%s: arguments %v: err = %v, want a refusal wanting an object", d.Name, bad, err)
			}
		}
	}
}
