package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectPythonProviderFolder: a Python tool that imports a module of
// its own must be in a folder of its own (plugins/NAME/tool.py beside
// helpers.py: docs/python.md "Sandbox", and the load error of a top-level
// file says so), but inspect could describe none: `inspect plugins/NAME`
// failed "is a folder without index.ts or index.js" and `inspect
// plugins/NAME/tool.py` was loaded as a file at the top of a plugin
// folder, refused for the very import the error told the author to put in
// a folder of its own (found by p140). inspect now loads a folder as
// discovery does, from its tool.<ext> (or its only script), with its own
// modules, and the file's error says to give the folder.
func TestInspectPythonProviderFolder(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "words")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"helpers.py": "def count(s):\n    return len(s.split())\n",
		"tool.py": `from aios_sdk import provider, tool
from helpers import count
provider(id="org.example.pywords")

@tool(name="py-word-count", parameters={"text": {"type": "string"}})
def word_count(params):
    return {"words": count(params["text"])}
`,
	}
	for n, src := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := e.run("", "inspect", dir)
	if code != exitOK || !strings.Contains(out, "provider org.example.pywords (runtime python)") || !strings.Contains(out, "tool py-word-count") {
		t.Fatalf("inspect %s: exit %d, stdout %q, stderr %q", dir, code, out, errs)
	}
	code, _, errs = e.run("", "inspect", filepath.Join(dir, "tool.py"))
	if code == exitOK || !strings.Contains(errs, "give the folder (aios-host inspect "+dir+")") {
		t.Fatalf("inspect of a provider folder's tool.py: exit %d, stderr %q", code, errs)
	}
	// A folder of several scripts and no tool.<ext> names them, as discovery does.
	if err := os.Rename(filepath.Join(dir, "tool.py"), filepath.Join(dir, "main.py")); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.run("", "inspect", dir); code == exitOK || !strings.Contains(errs, "helpers.py, main.py") {
		t.Errorf("inspect of a folder of two scripts: exit %d, stderr %q", code, errs)
	}
}
