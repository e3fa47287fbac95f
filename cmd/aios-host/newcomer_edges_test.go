package main

import (
	"strings"
	"testing"
)

// TestCommandFlagBeforeCommand: `aios-host --data D --socket S call …`
// (a newcomer putting every flag first, as the global ones may be) printed
// "flag provided but not defined: -socket" and the whole usage, which does
// not mention --socket. It now says where the flag goes.
func TestCommandFlagBeforeCommand(t *testing.T) {
	e := newEnv(t)
	code, _, errs := e.bare("--socket", "/tmp/none.sock", "call", "word-count", "{}")
	if code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
	for _, want := range []string{"--socket is not a global flag", "aios-host call … --socket", "aios-host help call"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q lacks %q", errs, want)
		}
	}
	if strings.Contains(errs, "Commands:") || strings.Contains(errs, "flag provided but not defined") {
		t.Errorf("stderr repeats the whole usage: %q", errs)
	}
	// Without a command: still a hint, exit 2.
	if code, _, errs := e.bare("--frob"); code != exitUsage || !strings.Contains(errs, "--frob is not a global flag") {
		t.Fatalf("--frob alone: %d %q", code, errs)
	}
}

// TestUsageLinesNameTheirFlags: `aios-host help call` (and list, run)
// gave a usage line without --socket (run: without --socket, --http,
// --engine, --wire), which README's CLI reference shows and the commands
// take.
func TestUsageLinesNameTheirFlags(t *testing.T) {
	e := newEnv(t)
	for cmd, flags := range map[string][]string{
		"call": {"[--socket PATH]"},
		"list": {"[--socket PATH]"},
		"run":  {"[--socket PATH]", "[--http ADDR]", "[--engine wazero|wasmtime]", "[--wire msgpack|json]"},
	} {
		code, out, _ := e.bare("help", cmd)
		line, _, _ := strings.Cut(out, "\n")
		if code != 0 {
			t.Fatalf("help %s: exit %d", cmd, code)
		}
		for _, f := range flags {
			if !strings.Contains(line, f) {
				t.Errorf("help %s: usage line %q lacks %s", cmd, line, f)
			}
		}
	}
}
