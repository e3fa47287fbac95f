package main

import (
	"strings"
	"testing"
)

// TestHelpSummariesNameWhatCommandsDo: the command list of `aios-host help`
// said inspect describes "a .wasm component or module" (it also describes
// .js, .ts and .py tools, as README and `inspect --help` say), audit "verify
// an audit log, or sign its anchor" (audit show was missing) and space "put
// and get" (list and spaces were missing), so a newcomer reading only the
// list did not learn of them (found by p114). Each summary now names them.
func TestHelpSummariesNameWhatCommandsDo(t *testing.T) {
	e := newEnv(t)
	code, out, _ := e.bare("help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	line := func(name string) string {
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) > 0 && f[0] == name {
				return l
			}
		}
		t.Fatalf("help lists no %s:\n%s", name, out)
		return ""
	}
	for name, wants := range map[string][]string{
		"inspect": {".js", ".py", ".wasm"},
		"audit":   {"verify", "show", "anchor"},
		"space":   {"put", "get", "list"},
	} {
		l := line(name)
		for _, w := range wants {
			if !strings.Contains(l, w) {
				t.Errorf("help's %s line %q does not mention %q", name, l, w)
			}
		}
	}
}
