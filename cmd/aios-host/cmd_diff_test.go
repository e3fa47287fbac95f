package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// greetJS is a JS provider id offering greet@version whose parameters
// require the listed names.
func greetJS(id, version, required string) string {
	return `aios.provider({id: '` + id + `'});
aios.registerTool({name: 'greet', version: '` + version + `', description: 'greets',
  parameters: {type: 'object', properties: {name: {type: 'string'}, lang: {type: 'string'}}, required: [` + required + `]}}, () => 'hi');`
}

// TestDiffCommand: `diff` in-process compares two versions of a tool
// registered by two plugin files, marks the breaking change, and reports
// bad input clearly; `list --json` shows registered_at and the SemVer
// violation of the version that broke callers without a major increase.
func TestDiffCommand(t *testing.T) {
	e := newEnv(t)
	for name, src := range map[string]string{
		"a.js": greetJS("org.test.greet-a", "1.0.0", "'name'"),
		"b.js": greetJS("org.test.greet-b", "1.1.0", "'name', 'lang'"),
	} {
		if err := os.WriteFile(filepath.Join(e.plugins, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := e.run("", "diff", "greet")
	if code != 0 {
		t.Fatalf("diff greet: %d %q %s", code, out, errs)
	}
	for _, want := range []string{"greet 1.0.0 (org.test.greet-a) → 1.1.0 (org.test.greet-b): 1 changes, 1 breaking: BREAKING for callers of 1.0.0",
		"BREAKING  /parameters/properties/lang  required-added"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff greet: output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = e.run("", "diff", "greet", "1.1.0", "1.0.0", "--json")
	var d struct {
		Tool, From, To string
		Breaking       bool
		Changes        []struct {
			Path, Kind string
			Breaking   bool
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil {
		t.Fatalf("diff --json: %d %q %s", code, out, errs)
	}
	if d.From != "1.1.0" || d.To != "1.0.0" || d.Breaking || len(d.Changes) != 1 || d.Changes[0].Kind != "required-removed" {
		t.Fatalf("diff greet 1.1.0 1.0.0: %s", out)
	}
	for _, bad := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"diff"}, exitUsage, "diff needs a tool name"},
		{[]string{"diff", "greet", "v1"}, exitUsage, `FROM "v1" is not a SemVer version`},
		{[]string{"diff", "greet", "1.0.0", "2"}, exitUsage, `TO "2" is not a SemVer version`},
		{[]string{"diff", "bad name!"}, exitUsage, "bad name!"},
		{[]string{"diff", "greet", "", "9.9.9"}, exitFail, "NotFound: tool greet has no version 9.9.9 (available: 1.0.0, 1.1.0)"},
		{[]string{"diff", "greet", "", "1.0.0"}, exitFail, "no version below 1.0.0"},
		{[]string{"diff", "greeet"}, exitFail, "NotFound"},
	} {
		code, _, errs := e.run("", bad.args...)
		if code != bad.code || !strings.Contains(errs, bad.want) {
			t.Errorf("%v: %d %q, want %d saying %q", bad.args, code, errs, bad.code, bad.want)
		}
	}

	code, out, errs = e.run("", "list", "--json")
	var tools []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &tools) != nil || len(tools) < 2 {
		t.Fatalf("list --json: %d %s %s", code, out, errs)
	}
	for _, ti := range tools {
		if at, _ := ti["registered_at"].(string); !strings.HasSuffix(at, "Z") {
			t.Errorf("list --json: %v@%v registered_at %v", ti["name"], ti["version"], ti["registered_at"])
		}
		if ti["name"] == "greet" && (ti["version"] == "1.1.0") != (ti["semver_violation"] != nil) {
			t.Errorf("list --json: greet@%v semver_violation %v", ti["version"], ti["semver_violation"])
		}
	}
}

// TestDiffThroughRunningHost: with a host on the socket, diff asks it
// (aios/registry.diff with tool, from and to) and prints its answer.
func TestDiffThroughRunningHost(t *testing.T) {
	e := newEnv(t)
	sock := filepath.Join(e.data, "aios-host.sock")
	f := startFakeHost(t, sock, func(method string) any {
		if method != "aios/registry.diff" {
			return nil
		}
		return map[string]any{"tool": "echo", "from": "1.0.0", "to": "2.0.0", "from_provider": "p", "to_provider": "q", "breaking": true,
			"changes": []map[string]any{{"path": "/returns/type", "kind": "type-widened", "breaking": true, "old": "integer", "new": "number"}}}
	})
	code, out, errs := e.bare("diff", "echo", "1.0.0", "--data", e.data)
	if code != 0 || !strings.Contains(out, `/returns/type  type-widened  "integer" → "number"`) || !strings.Contains(out, "echo 1.0.0 (p) → 2.0.0 (q)") {
		t.Fatalf("diff through a running host: %d %q %q", code, out, errs)
	}
	p := f.paramsOf("aios/registry.diff")
	if len(p) != 1 || string(p[0]) != `{"from":"1.0.0","to":"","tool":"echo"}` {
		t.Fatalf("params sent: %s", p)
	}
}
