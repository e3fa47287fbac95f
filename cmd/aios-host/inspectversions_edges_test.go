package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestInspectShowsEachToolsVersion: `inspect` printed a tool's name, its
// description and schemas but never its version, in the text and in
// --json alike, so a module serving a@1.0.0 and a@2.0.0 (several versions
// of a name from one WASM provider, docs/registry.md) was shown as two
// identical "tool a" entries, and an author could not see which version
// the host would register. Each tool is shown with its version, the one
// the registry gives it (1.0.0 when the tool names none).
func TestInspectShowsEachToolsVersion(t *testing.T) {
	mod := registerOnlyModule(t, "v", `{"format":1,"provider":{"id":"org.probe.inspectversions"},"tools":[`+
		`{"name":"a"},{"name":"a","version":"2.0.0"}]}`)
	e := newEnv(t)
	code, out, errs := e.run("", "inspect", mod)
	if code != exitOK || !strings.Contains(out, "tool a 1.0.0\n") || !strings.Contains(out, "tool a 2.0.0\n") {
		t.Errorf("inspect: exit %d, stdout:\n%s\nstderr: %s\nwant tool a 1.0.0 and tool a 2.0.0", code, out, errs)
	}
	code, out, errs = e.run("", "inspect", "--json", mod)
	var got struct {
		Tools []struct{ Name, Version string }
	}
	if code != exitOK {
		t.Fatalf("inspect --json: exit %d: %s", code, errs)
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("inspect --json: %v\n%s", err, out)
	}
	if len(got.Tools) != 2 || got.Tools[0].Version != "1.0.0" || got.Tools[1].Version != "2.0.0" {
		t.Errorf("inspect --json tools %+v; want a 1.0.0 and a 2.0.0\n%s", got.Tools, out)
	}
}
