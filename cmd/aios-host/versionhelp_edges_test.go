package main

import (
	"strings"
	"testing"
)

// TestCallVersionHelpNamesTheDefault: `call --help` said --version
// defaults to "newest", but a call without --version reaches the tool's
// default version (docs/registry.md "Version resolution"): the newest
// non-deprecated release, so with 1.1.0, a deprecated 1.2.0 and
// 2.0.0-rc.1 registered it called 1.1.0, not the newest. The help names
// the default as it is.
func TestCallVersionHelpNamesTheDefault(t *testing.T) {
	e := newEnv(t)
	code, out, _ := e.bare("call", "--help")
	if code != 0 {
		t.Fatalf("call --help: code %d", code)
	}
	i := strings.Index(out, "\n  -version")
	if i < 0 {
		t.Fatalf("call --help does not describe --version:\n%s", out)
	}
	help := out[i:]
	if j := strings.Index(help[1:], "\n  -"); j >= 0 {
		help = help[:j+1]
	}
	if strings.Contains(help, "default: newest;") {
		t.Errorf("--version help says the default is the newest version:\n%s", help)
	}
	for _, want := range []string{"newest non-deprecated release", "pre-release"} {
		if !strings.Contains(help, want) {
			t.Errorf("--version help does not say %q:\n%s", want, help)
		}
	}
}
