package discovery

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestYAMLUnknownKey: a misspelt key in a tool.aios.yaml
// ("verison") was refused as yaml.v3 words it — "yaml: unmarshal errors:
// line 4: field verison not found in type discovery.yamlTool" — naming a Go
// type instead of the yaml key path, with no hint of the key meant. It is
// now checked as the config file is: line, key path, "did you mean".
func TestYAMLUnknownKey(t *testing.T) {
	for doc, want := range map[string]string{
		"tool:\n  id: org.example.notes\n  name: Notes\n  verison: 1.2.0\n":                                               `tool.aios.yaml:4: tool.verison: unknown key "verison", did you mean "version"?`,
		"tol:\n  id: org.example.notes\n":                                                                                 `tool.aios.yaml:1: tol: unknown key "tol", did you mean "tool"?`,
		"tool: {id: org.example.x, name: X, version: 1.0.0}\ncapabilities:\n  - id: a\n    inputschema: {type: object}\n": `tool.aios.yaml:4: capabilities[0].inputschema: unknown key "inputschema", did you mean "input_schema"?`,
	} {
		_, err := ParseYAML([]byte(doc), "tool.aios.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "discovery.") {
			t.Errorf("%q: error %v, want it to start %q", doc, err, want)
		}
	}
}

// TestCardUnknownMemberHint: a misspelt member of an Adapter Card
// ("verison") was refused in encoding/json's words, `adapter: json: unknown
// field "verison"`; it now says "unknown member" and the member meant, as
// the config and tool.aios.yaml do.
func TestCardUnknownMemberHint(t *testing.T) {
	for card, want := range map[string]string{
		`{"adapter":{"id":"org.x.y","name":"n","verison":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},"skills":[]}`:                                                                `adapter.json: adapter: unknown member "verison", did you mean "version"?`,
		`{"adapter":{"id":"org.x.y","name":"n","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},"skills":[{"id":"a","name":"a","permission_level":"low","input_shema":{}}]}`: `adapter.json: skills[0](a): unknown member "input_shema", did you mean "input_schema"?`,
	} {
		_, err := ParseCard([]byte(card), "adapter.json")
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error %v, want it to start %q", card, err, want)
		}
	}
}

// TestNearMissExtensionWarned: a first tool saved as words.tsx,
// words.jsx or words.cjs was skipped with an Info line that `list` and
// `call` (warn by default) do not show: the tool was simply missing. A file
// whose extension is a JS/TS/Python variant the host does not load is now
// a warning saying what to rename it to; other files (notes.txt) stay at
// Info.
func TestNearMissExtensionWarned(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	newEnvWith(t, "", func(dir string) {
		writeFile(t, filepath.Join(dir, "words.tsx"), "aios.provider({});\n")
		writeFile(t, filepath.Join(dir, "notes.txt"), "hello\n")
	}, withLogs(logs))
	testutil.Eventually(t, "both files noted", func() bool {
		return logLines(logs, "words.tsx") > 0 && logLines(logs, "notes.txt") > 0
	})
	if logLines(logs, "level=WARN", "words.tsx", ".ts") != 1 {
		t.Errorf("words.tsx not warned about once:\n%s", logs.String())
	}
	if logLines(logs, "level=WARN", "notes.txt") != 0 {
		t.Errorf("notes.txt warned about:\n%s", logs.String())
	}
}
