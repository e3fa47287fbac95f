package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallParamsFileNameSaysHow: the name of a file given where the JSON
// params go (call TOOL params.json, or curl's @params.json) was refused
// as JSON with "JSON keys and strings take double quotes", which sent the
// user looking for quotes. It is still refused (exit 2: the argument is
// the params), saying that it is a file and how to give the params it
// holds; the same call with them from standard input is made.
func TestCallParamsFileNameSaysHow(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "params.json")
	if err := os.WriteFile(file, []byte(`{"object_id": "sha256:zz"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, tc := range []struct{ arg, want string }{
		{"params.json", `"params.json" is a file: to call with the params it holds, give - and redirect it: aios-host call analyze-complexity - < params.json`},
		{file, `is a file: to call with the params it holds, give - and redirect it: aios-host call analyze-complexity - < ` + file},
		{"@params.json", `"@params.json" names the file params.json: to call with the params it holds, give - and redirect it: aios-host call analyze-complexity - < params.json`},
	} {
		code, out, errs := e.run("", "call", "analyze-complexity", tc.arg)
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.want) || strings.Contains(errs, "double quotes") {
			t.Errorf("call with %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.arg, code, out, errs, tc.want)
		}
	}
	// Not a file: the JSON hint, as before.
	if code, _, errs := e.run("", "call", "analyze-complexity", "{n: 1}"); code != exitUsage || !strings.Contains(errs, "double quotes") || strings.Contains(errs, "redirect") {
		t.Errorf("call with {n: 1}: %d %q", code, errs)
	}
	// The way it says: the params reach the tool (its own error about them).
	data, _ := os.ReadFile(file)
	if code, _, errs := e.run(string(data), "call", "analyze-complexity", "-"); code != exitFail || !strings.Contains(errs, `sha256:zz`) {
		t.Errorf("call - < params.json: %d %q", code, errs)
	}
}
