package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `aios-host call` of a deprecated tool warns on stderr in-process (the
// host's "deprecated tool called" line); through a running host it said
// nothing, the tools/call answer having no deprecation to say. It now
// warns the same way from the answer's deprecation, naming the tool, its
// version and what replaces it, and prints the value as before.
func TestCallThroughHostSaysDeprecated(t *testing.T) {
	e := newEnv(t)
	sock := filepath.Join(e.data, "aios-host.sock")
	startFakeHost(t, sock, func(method string) any {
		if method == "tools/call" {
			return map[string]any{"value": "hello", "tool": "old-echo", "version": "1.2.0",
				"deprecation": map[string]any{"since": "1.2.0", "message": "it echoes badly", "replacement": "echo"}}
		}
		return nil
	})
	code, out, errs := e.run("", "call", "old-echo", "{}")
	if code != 0 || out != "hello\n" {
		t.Fatalf("call through a running host: %d %q %q", code, out, errs)
	}
	for _, want := range []string{"deprecated tool called", "tool=old-echo", "version=1.2.0", "since=1.2.0", "replacement=echo", `message="it echoes badly"`} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q lacks %q", errs, want)
		}
	}
	// --json keeps stdout the value alone.
	code, out, errs = e.run("", "call", "old-echo", "{}", "--json")
	if code != 0 || out != "\"hello\"\n" || !strings.Contains(errs, "deprecated tool called") {
		t.Fatalf("call --json through a running host: %d %q %q", code, out, errs)
	}
	// --log-level error silences it, as it does the in-process warning.
	if code, _, errs = e.run("", "call", "old-echo", "{}", "--log-level", "error"); code != 0 || strings.Contains(errs, "deprecated") {
		t.Fatalf("call --log-level error: %d %q", code, errs)
	}
}

// `list --json` said "deprecated": true of a deprecated tool and nothing
// of since when, why or what replaces it (the seed's RegisteredTool has
// deprecation_info; tools/list has deprecation): it carries deprecation,
// in-process and through a running host alike.
func TestListJSONSaysDeprecation(t *testing.T) {
	e := newEnv(t)
	plugins := t.TempDir()
	src := "aios.provider({ id: 'org.example.dep' });\n" +
		"aios.registerTool({ name: 'old-echo', deprecation: {since: '1.0.0', message: 'it echoes badly', replacement: 'echo'}, parameters: {} }, () => 1);\n"
	if err := os.WriteFile(filepath.Join(plugins, "dep.js"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(how, out string) {
		t.Helper()
		var tools []map[string]any
		if err := json.Unmarshal([]byte(out), &tools); err != nil {
			t.Fatalf("%s: %v: %q", how, err, out)
		}
		for _, tl := range tools {
			if tl["name"] != "old-echo" {
				continue
			}
			d, _ := tl["deprecation"].(map[string]any)
			if tl["deprecated"] != true || d["since"] != "1.0.0" || d["replacement"] != "echo" || d["message"] != "it echoes badly" {
				t.Fatalf("%s: old-echo listed as %v", how, tl)
			}
			return
		}
		t.Fatalf("%s: old-echo not listed: %s", how, out)
	}
	code, out, errs := e.bare("list", "--json", "--data", e.data, "--plugins", plugins)
	if code != 0 {
		t.Fatalf("list --json: %d %q", code, errs)
	}
	check("in-process", out)

	sock := filepath.Join(e.data, "fake.sock")
	startFakeHost(t, sock, func(method string) any {
		if method == "tools/list" {
			return map[string]any{"tools": []map[string]any{{"name": "old-echo", "version": "1.0.0", "provider": "p", "runtime": "js",
				"trust": "Untrusted", "inputSchema": map[string]any{}, "deprecated": true,
				"deprecation": map[string]any{"since": "1.0.0", "message": "it echoes badly", "replacement": "echo"}}}}
		}
		return nil
	})
	code, out, errs = e.bare("list", "--json", "--socket", sock, "--data", e.data)
	if code != 0 {
		t.Fatalf("list --json through a running host: %d %q", code, errs)
	}
	check("through a running host", out)
}
