package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallEmptyVersionRefused: call --version "" (a script's --version
// "$PIN" with PIN lost) was taken as no --version: the newest version of
// the tool was called, which may break what the script pinned a version
// for. An empty --version is a usage error (exit 2), as an empty --as is,
// and nothing is called.
func TestCallEmptyVersionRefused(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"call", "analyze-complexity", "{}", "--version", ""},
		{"call", "analyze-complexity", "{}", "--version="},
	} {
		code, out, errs := e.run("", args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, `--version "": empty value`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.data, "audit.jsonl")); err == nil && len(b) > 0 {
		t.Errorf("a call was recorded:\n%s", b)
	}
	// A constraint still selects.
	if code, _, errs := e.run("", "call", "analyze-complexity", "{}", "--version", "^2"); code != exitFail || !strings.Contains(errs, "NotFound") {
		t.Errorf("--version ^2: exit %d, stderr %q", code, errs)
	}
}

// TestCallWithoutDefaultAgentNamesAs: with default_agent: "" (no agent
// for calls that name none) call without --as loaded every plugin, made
// the call and printed "CapabilityDenied: the call names no caller; set
// caller to an agent of the config", which names no flag to give. It is a
// usage error naming the file's line and --as, before anything loads;
// with --as the call is made.
func TestCallWithoutDefaultAgentNamesAs(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("# agents\ndefault_agent: \"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "call", "analyze-complexity", "{}", "--config", cfg)
	want := "aios-host: no agent to call as: " + cfg + `:2: default_agent is empty; give --as AGENT (agents: cli)`
	if code != exitUsage || out != "" || strings.TrimSpace(errs) != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errs, want)
	}
	if b, err := os.ReadFile(filepath.Join(e.data, "audit.jsonl")); err == nil && len(b) > 0 {
		t.Errorf("a call was recorded:\n%s", b)
	}
	// With --as the call is made (and refused for its params, not its caller).
	if code, _, errs := e.run("", "call", "analyze-complexity", "{}", "--as", "cli", "--config", cfg); code != exitFail || !strings.HasPrefix(errs, "InvalidParams") {
		t.Errorf("--as cli: exit %d, stderr %q", code, errs)
	}
}
