package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectFolderAppliesItsCard: `inspect plugins/NAME` of a folder
// whose tool.aios.yaml (or adapter.json) binds its artifact, as
// docs/discovery.md's notes example does, showed the artifact's own
// registration: provider and versions from tool.js (1.0.0), no permission
// levels, while the host serves the tools under the card (1.2.0, high and
// critical). inspect applies the folder's card as discovery binds it: its
// id and version, each skill's version, level and schema, and the
// artifact its artifact.path names.
func TestInspectFolderAppliesItsCard(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "notes")
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tool.js", `aios.provider({ id: 'org.example.artifact' });
aios.registerTool({ name: 'notes.create', parameters: { text: { type: 'string' } } }, (p) => ({ ok: true }));
aios.registerTool({ name: 'notes.delete', parameters: { id: { type: 'string' } } }, (p) => ({ ok: true }));
`)
	write("tool.aios.yaml", `tool:
  id: org.example.notes
  name: Notes
  version: 1.2.0
capabilities:
  - id: notes.create
    name: Create a note
    input_schema: {type: object, properties: {text: {type: string, maxLength: 100}}, required: [text]}
  - id: notes.delete
    name: Delete a note
permissions:
  - {skill: "notes.delete", level: critical}
  - {skill: "notes.*", level: high}
artifact: {path: tool.js}
`)
	code, out, errs := e.run("", "inspect", dir)
	for _, want := range []string{"provider org.example.notes (runtime js)", "tool notes.create 1.2.0", "tool notes.delete 1.2.0", "permission level critical", "permission level high", `"maxLength": 100`} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("inspect %s: exit %d, no %q in stdout %q, stderr %q", dir, code, want, out, errs)
		}
	}
	code, out, errs = e.run("", "inspect", "--json", dir)
	if code != exitOK || !strings.Contains(out, `"id": "org.example.notes"`) || !strings.Contains(out, `"version": "1.2.0"`) {
		t.Errorf("inspect --json %s: exit %d, stdout %q, stderr %q", dir, code, out, errs)
	}

	// A card in the package's aios/ folder, naming an artifact that is
	// not tool.<ext>, and a skill the artifact does not offer: the
	// host's error.
	if err := os.Remove(filepath.Join(dir, "tool.aios.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "tool.js"), filepath.Join(dir, "notes.js")); err != nil {
		t.Fatal(err)
	}
	write("aios/adapter.json", `{"adapter": {"id": "org.example.pkg", "name": "Pkg", "version": "2.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "notes.create", "name": "Create", "permission_level": "low"}],
 "artifact": {"path": "notes.js"}}`)
	code, out, errs = e.run("", "inspect", dir)
	if code != exitOK || !strings.Contains(out, "provider org.example.pkg") || !strings.Contains(out, "tool notes.create 2.0.0") || !strings.Contains(out, "permission level low") {
		t.Errorf("inspect %s with aios/adapter.json: exit %d, stdout %q, stderr %q", dir, code, out, errs)
	}
	write("aios/adapter.json", `{"adapter": {"id": "org.example.pkg", "name": "Pkg", "version": "2.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "notes.rename", "name": "Rename", "permission_level": "low"}], "artifact": {"path": "notes.js"}}`)
	if code, _, errs := e.run("", "inspect", dir); code != exitFail || !strings.Contains(errs, `skill "notes.rename" is not offered by its artifact`) {
		t.Errorf("inspect %s with a skill the artifact lacks: exit %d, stderr %q", dir, code, errs)
	}
}
