package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectProviderFolder: a TS provider that imports a module of its
// own must be a folder (plugins/NAME/index.ts, README and docs/js.md; the
// load of a top-level file with a relative import says so), but inspect
// could not describe one: `inspect plugins/NAME` failed "read …: is a
// directory" and `inspect plugins/NAME/index.ts` was loaded as a file at
// the top of a plugin folder, refused for the very import the error told
// the author to move into a folder (found by p118). inspect now loads a
// folder as the host loads a provider folder, from its index.ts or
// index.js, with its own modules.
func TestInspectProviderFolder(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "words")
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lib", "count.ts"), []byte("export function count(s: string): number { return s.split(/\\s+/).filter(Boolean).length; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.ts"), []byte(`import { count } from './lib/count';
aios.provider({ id: 'org.example.words' });
aios.registerTool({ name: 'word-count', parameters: { text: { type: 'string' } } }, (p: { text: string }) => ({ words: count(p.text) }));
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "inspect", dir)
	if code != exitOK || !strings.Contains(out, "provider org.example.words (runtime ts)") || !strings.Contains(out, "tool word-count") {
		t.Fatalf("inspect %s: exit %d, stdout %q, stderr %q", dir, code, out, errs)
	}
	code, out, errs = e.run("", "inspect", "--json", dir)
	if code != exitOK || !strings.Contains(out, `"kind": "ts"`) || !strings.Contains(out, `"word-count"`) {
		t.Fatalf("inspect --json %s: exit %d, stdout %q, stderr %q", dir, code, out, errs)
	}
	// A folder that holds no provider says what it lacks.
	empty := t.TempDir()
	if code, _, errs := e.run("", "inspect", empty); code == exitOK || !strings.Contains(errs, "index.ts") {
		t.Errorf("inspect of an empty folder: exit %d, stderr %q", code, errs)
	}
}

// TestInspectFolderFileSaysGiveTheFolder: `inspect plugins/NAME/index.ts`
// of a provider folder whose index imports its own modules was refused
// with the advice to put the provider in plugins/NAME/index.ts, the file
// given (found by p118). The error now says inspect reads a file as a
// top-level one and to give the folder.
func TestInspectFolderFileSaysGiveTheFolder(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "prov")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lib.ts"), []byte("export const count = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.ts"), []byte("import { count } from './lib';\naios.registerTool({ name: 'wc' }, () => ({ n: count }));\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.run("", "inspect", filepath.Join(dir, "index.ts"))
	if code == exitOK || !strings.Contains(errs, "give the folder (aios-host inspect "+dir+")") {
		t.Fatalf("inspect of a provider folder's index.ts: exit %d, stderr %q", code, errs)
	}
}
