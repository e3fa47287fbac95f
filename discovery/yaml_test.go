package discovery

import (
	"os"
	"strings"
	"testing"
)

func TestParseYAML(t *testing.T) {
	data, err := os.ReadFile("testdata/tool.aios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseYAML(data, "tool.aios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Adapter.ID != "org.example.notes" || c.Adapter.Version != "1.2.0" || c.Adapter.ProtocolVersion != ProtocolVersion {
		t.Fatalf("adapter = %+v", c.Adapter)
	}
	levels := map[string]string{}
	for _, s := range c.Skills {
		levels[s.ID] = s.PermissionLevel
	}
	want := map[string]string{"notes.create": "high", "notes.list": "medium", "notes.delete": "critical"}
	for k, v := range want {
		if levels[k] != v {
			t.Errorf("%s: level %q, want %q", k, levels[k], v)
		}
	}
	if !c.Capabilities.Streaming || c.Artifact == nil || c.Artifact.Path != "tool.js" {
		t.Fatalf("card = %+v", c)
	}
	max := c.Skills[0].InputSchema["properties"].(map[string]any)["text"].(map[string]any)["maxLength"]
	if max != int64(1000) {
		t.Fatalf("maxLength = %#v", max)
	}
}

func TestParseYAMLRejects(t *testing.T) {
	base := "tool: {id: org.example.x, name: X, version: 1.0.0}\n"
	cases := []struct{ name, doc, want string }{
		{"empty", "", "empty document"},
		{"not-yaml", "tool: [", "yaml"},
		{"unknown-key", base + "colour: red\n", "colour"},
		{"unknown-tool-key", "tool: {id: org.example.x, name: X, version: 1.0.0, colour: red}\n", "colour"},
		{"no-id", "tool: {name: X, version: 1.0.0}\n", "tool.id"},
		{"bad-id", "tool: {id: X, name: X, version: 1.0.0}\n", "tool.id"},
		{"bad-version", "tool: {id: org.example.x, name: X, version: one}\n", "tool.version"},
		{"bad-level", base + "permissions: [{skill: '*', level: mega}]\n", "permissions[0].level"},
		{"rule-no-skill", base + "permissions: [{level: low}]\n", "permissions[0].skill"},
		{"bad-skill-id", base + "capabilities: [{id: 'a b'}]\n", "capabilities[0].id"},
		{"bad-schema", base + "capabilities: [{id: a, input_schema: {type: object, properties: 3}}]\n", "input_schema"},
		{"non-string-key", base + "capabilities: [{id: a, input_schema: {type: object, properties: {1: {}}}}]\n", "input_schema"},
		{"two-docs", base + "---\n" + base, "more than one"},
		{"wrong-type", "tool: {id: org.example.x, name: X, version: [1]}\n", "yaml"},
		{"bad-endpoint", base + "endpoints: {rpc: 'gopher://x'}\n", "endpoints.rpc"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseYAML([]byte(c.doc), "tool.aios.yaml")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "tool.aios.yaml") {
				t.Fatalf("error %v, want one naming the file and %q", err, c.want)
			}
		})
	}
}

func FuzzParseYAML(f *testing.F) {
	data, _ := os.ReadFile("testdata/tool.aios.yaml")
	f.Add(data)
	f.Add([]byte("tool: {id: org.example.x, name: X, version: 1.0.0}\ncapabilities: [{id: a}]\n"))
	f.Add([]byte("tool: &a {id: *a}\n"))
	f.Add([]byte("tool: {id: org.example.x, name: X, version: 1.0.0}\ncapabilities: [{id: a, input_schema: {type: object, properties: 3}}]\n"))
	f.Add([]byte("tool:\n  id: org.example.x\n  verison: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseYAML(data, "fuzz.yaml")
		if err != nil {
			// Every refusal names the file.
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("%q: the error %q names not the file", data, err)
			}
			return
		}
		if _, err := c.Marshal(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestParseYAMLValueErrorLines: a value error in a tool.aios.yaml names the
// line of its key, as unknown keys and the config file's errors do
// (level: hgh said only "permissions[0].level", p42's note); a key that is
// missing, or a value the conversion made, gets its parent's line.
func TestParseYAMLValueErrorLines(t *testing.T) {
	doc := `tool:
  id: org.example.x
  name: X
  version: 1.0.0
capabilities:
  - id: ok
  - id: also.ok
    input_schema:
      type: object
      properties: 3
permissions:
  - skill: "*"
    level: hgh
endpoints:
  rpc: gopher://x
`
	cases := []struct{ name, doc, want string }{
		{"level", doc, "tool.aios.yaml:13: permissions[0].level: \"hgh\""},
		{"schema", strings.Replace(doc, "level: hgh", "level: low", 1), "tool.aios.yaml:8: capabilities[1](also.ok).input_schema"},
		{"endpoint", strings.NewReplacer("level: hgh", "level: low", "properties: 3", "properties: {}").Replace(doc), "tool.aios.yaml:15: endpoints.rpc"},
		{"version", strings.NewReplacer("level: hgh", "level: low", "version: 1.0.0", "version: one").Replace(doc), "tool.aios.yaml:4: tool.version"},
		{"missing id", strings.Replace(doc, "  id: org.example.x\n", "", 1), "tool.aios.yaml:1: tool.id: required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseYAML([]byte(c.doc), "tool.aios.yaml")
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v, want one starting %q", err, c.want)
			}
		})
	}
}
