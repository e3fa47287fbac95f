package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallParamsQuoting: `call TOOL '{n:1}'` or "{'n':1}" (a
// JavaScript or Python habit) said only "json: invalid character 'n'
// looking for beginning of object key string": neither where nor how to
// write it. It now gives the byte offset and, for an unquoted or
// single-quoted key or string, that JSON takes double quotes.
func TestCallParamsQuoting(t *testing.T) {
	e := newEnv(t)
	for _, arg := range []string{`{n:1}`, `{'n':1}`, `{"n":'x'}`} {
		code, out, errs := e.run("", "call", "analyze-complexity", arg)
		if code != exitUsage || out != "" || !strings.Contains(errs, "at byte ") || !strings.Contains(errs, `double quotes`) {
			t.Errorf("call %q: exit %d, stdout %q, stderr %q; want exit 2, the offset and the quoting hint", arg, code, out, errs)
		}
	}
	// Another syntax error gets the offset, not the quoting hint.
	if code, _, errs := e.run("", "call", "analyze-complexity", `{"n":1,}`); code != exitUsage || !strings.Contains(errs, "at byte ") || strings.Contains(errs, "double quotes") {
		t.Errorf("trailing comma: exit %d, stderr %q", code, errs)
	}
}

// TestInspectScript: a tool author who wants to see the schema the
// SDK made of their shorthand (which properties are required) ran
// `aios-host inspect words.js` and got "not a WebAssembly binary": inspect
// read .wasm files only, and list --json shows no schemas. inspect now
// loads a JS, TS or Python file with its runtime and prints its tools
// and schemas as it does a core module's.
func TestInspectScript(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	js := filepath.Join(dir, "words.js")
	if err := os.WriteFile(js, []byte(`aios.provider({ id: 'org.example.words' });
aios.registerTool({ name: 'word-count', parameters: { object_id: { type: 'string' }, lang: { type: 'string', default: 'en' } } },
  async (params, ctx) => ({ words: 0 }));
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "inspect", js)
	if code != exitOK || !strings.Contains(out, "provider org.example.words (runtime js)") || !strings.Contains(out, "tool word-count") ||
		!strings.Contains(out, `"required": [`) || !strings.Contains(out, `"object_id"`) {
		t.Fatalf("inspect words.js: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = e.run("", "inspect", js, "--json")
	if code != exitOK || !strings.Contains(out, `"kind": "js"`) || !strings.Contains(out, `"input_schema"`) {
		t.Fatalf("inspect --json words.js: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// A file of no runtime says what inspect reads.
	txt := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(txt, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.run("", "inspect", txt); code == exitOK || !strings.Contains(errs, ".wasm") || !strings.Contains(errs, ".js") {
		t.Errorf("inspect notes.txt: exit %d, stderr %q", code, errs)
	}
}

// TestInspectInvalidSchema: inspect printed a tool whose parameters
// schema the host refuses (a property's schema "string" instead of {type:
// "string"}) as if it were fine, exit 0, while every load of the file
// failed. It now reports the schema error, exit 1. (The schema says
// type: 'object': {properties: {type: 'string'}} alone is now the
// shorthand for one parameter named "properties", p80.)
func TestInspectInvalidSchema(t *testing.T) {
	e := newEnv(t)
	js := filepath.Join(t.TempDir(), "bad.js")
	if err := os.WriteFile(js, []byte(`aios.provider({ id: 'org.example.bad' });
aios.registerTool({ name: 'b', parameters: { type: 'object', properties: { name: 'string' } } }, async (p) => p);
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.run("", "inspect", js)
	if code != exitFail || !strings.Contains(errs, "schema of b@1.0.0 parameters is invalid") {
		t.Fatalf("inspect bad.js: exit %d, stderr %q", code, errs)
	}
}

// TestInspectShowsWhatToolsRequire: inspect showed neither the grants a
// provider asks for nor what its tools require of their callers
// (capability_required) and their levels, so an author could not check
// with it what the host would demand (found by p181). The text and --json
// show them.
func TestInspectShowsWhatToolsRequire(t *testing.T) {
	e := newEnv(t)
	js := filepath.Join(t.TempDir(), "docs.js")
	if err := os.WriteFile(js, []byte(`aios.provider({ id: 'org.example.docs', capabilities: ['ReadSpace(documents)'] });
aios.registerTool({ name: 'summarize', capabilityRequired: ['ReadSpace(documents)'], permissionLevel: 'high', latencyClass: 'slow' },
  async (params, ctx) => ({ ok: true }));
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "inspect", js)
	for _, want := range []string{"requests: ReadSpace(documents)", "callers need: ReadSpace(documents)", "permission level high, latency class slow"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("inspect docs.js: exit %d, want …%s…; stdout %q, stderr %q", code, want, out, errs)
		}
	}
	code, out, errs = e.run("", "inspect", js, "--json")
	for _, want := range []string{`"capability_required": [`, `"permission_level": "high"`, `"latency_class": "slow"`, `"capabilities": [`} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("inspect --json docs.js: exit %d, want …%s…; stdout %q, stderr %q", code, want, out, errs)
		}
	}
}
