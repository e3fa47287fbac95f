package main

import (
	"fmt"
	"os"
	"path/filepath"
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

// TestHelpNamesEveryExitCode: `aios-host help` and README's "Exit codes"
// listed 0, 1 and 2, while verify exits 3 when the key set could not be
// fetched (no verdict on the card): a script reading the list took 3 for
// a code aios-host never gives. Both name it now.
func TestHelpNamesEveryExitCode(t *testing.T) {
	e := newEnv(t)
	code, out, _ := e.bare("help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	var exits string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Exit codes:") {
			exits = l
		}
	}
	for _, c := range []int{exitOK, exitFail, exitUsage, exitUnchecked} {
		if !strings.Contains(exits, fmt.Sprintf(" %d ", c)) {
			t.Errorf("help's exit codes %q do not name %d", exits, c)
		}
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(readme), "Exit codes: ")
	if i < 0 {
		t.Fatal("README has no \"Exit codes: \"")
	}
	para, _, _ := strings.Cut(string(readme[i:]), "\n\n")
	for _, c := range []int{exitOK, exitFail, exitUsage, exitUnchecked} {
		if !strings.Contains(para, fmt.Sprintf("**%d**", c)) {
			t.Errorf("README's exit codes do not name %d:\n%s", c, para)
		}
	}
}
