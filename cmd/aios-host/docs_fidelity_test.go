package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/audit"
)

// TestCallAsWhileHostRuns: the README says that `call --as AGENT`
// loads the tools in the command's own process when a host runs on the
// data directory (and the command's own notice suggests it). The running
// host holds the audit log, so such a call used to fail with "audit log is
// in use by another process". It now writes a hash-chained log of its own
// under <data>/audit-sessions/, as `aios-host mcp` does, and names it.
func TestCallAsWhileHostRuns(t *testing.T) {
	e := newEnv(t)
	id := e.putSource()
	held, err := audit.Open(filepath.Join(e.data, "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	code, out, errs := e.run("", "call", "analyze-complexity", `{"object_id": "`+id+`", "language": "go"}`, "--as", "cli")
	if code != 0 || !strings.Contains(out, `"complexity"`) {
		t.Fatalf("call --as with the audit log held: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	logs, _ := filepath.Glob(filepath.Join(e.data, "audit-sessions", "call-*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("want one session log under audit-sessions, got %v (stderr %q)", logs, errs)
	}
	if !strings.Contains(errs, logs[0]) {
		t.Errorf("stderr does not name the session log %s: %q", logs[0], errs)
	}
	data, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 1 {
		t.Errorf("session log has %d records, want 1", n)
	}
	if code, _, errs := e.run("", "audit", "verify", logs[0]); code != 0 {
		t.Errorf("audit verify of the session log: %d %s", code, errs)
	}
}

// TestFolderProvidersOwnIDs: a provider folder with one artifact and
// no description (docs/discovery.md: "sub/ with one artifact (or
// tool.<ext>)") that names no id got the id of its file's stem, so every
// such folder was local.index or local.tool: the second one was shadowed
// by the first and its tools were missing, without a word. The id is now
// the folder's name.
func TestFolderProvidersOwnIDs(t *testing.T) {
	e := newEnv(t)
	write := func(rel, src string) {
		p := filepath.Join(e.plugins, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("alpha/index.ts", "aios.registerTool({name: 'alpha-tool', parameters: {}}, () => 'a');\n")
	write("beta/index.ts", "aios.registerTool({name: 'beta-tool', parameters: {}}, () => 'b');\n")
	write("word_count/tool.js", "aios.registerTool({name: 'wc-tool', parameters: {}}, () => 'w');\n")
	write("gamma/tool.py", "from aios_sdk import tool\n\n@tool(name='gamma-tool')\ndef g(params):\n    return 'g'\n")
	write("delta/tool.py", "from aios_sdk import tool\n\n@tool(name='delta-tool')\ndef d(params):\n    return 'd'\n")
	code, out, errs := e.run("", "list", "--json")
	if code != 0 {
		t.Fatalf("list: %d %s", code, errs)
	}
	var tools []struct{ Name, Provider string }
	if err := json.Unmarshal([]byte(out), &tools); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tl := range tools {
		got[tl.Name] = tl.Provider
	}
	want := map[string]string{"alpha-tool": "local.alpha", "beta-tool": "local.beta", "wc-tool": "local.word-count",
		"gamma-tool": "local.gamma", "delta-tool": "local.delta"}
	for name, id := range want {
		if got[name] != id {
			t.Errorf("tool %s: provider %q, want %q (stderr: %s)", name, got[name], id, errs)
		}
	}
}

// TestUsageShowsNoGivenValueAsDefault: a usage error after global
// flags given before the command (`aios-host --plugins DIR diff x ^1`)
// printed the command's help with "-plugins dir … (default DIR)": the
// value given, shown as if it were the default.
func TestUsageShowsNoGivenValueAsDefault(t *testing.T) {
	e := newEnv(t)
	cfg := writeConfig(t, "limits: {default_deadline: 5s}\n")
	code, _, errs := e.bare("--plugins", e.plugins, "--config", cfg, "--data", e.data, "--log-level", "error", "diff", "x", "^1")
	if code != exitUsage {
		t.Fatalf("exit %d, want %d: %s", code, exitUsage, errs)
	}
	for _, v := range []string{e.plugins, cfg, e.data, "error"} {
		if strings.Contains(errs, "(default "+v) {
			t.Errorf("usage shows the given value %q as a default:\n%s", v, errs)
		}
	}
}

// TestVerifyWithoutKeysSaysSo: docs/trust.md shows `aios-host verify
// CARD` taking the config's keys when neither --jwks nor --jwks-url is
// given. With no config (or one without discovery.keys) it answered only
// "no trusted key has key id …", as if the key were the problem; it now
// says that no key was given and where keys come from.
func TestVerifyWithoutKeysSaysSo(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", filepath.Join(dir, "k")); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	folder := filepath.Join(dir, "adapter")
	_ = os.MkdirAll(folder, 0o755)
	_ = os.WriteFile(filepath.Join(folder, "tool.wasm"), []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	draft := filepath.Join(folder, "draft.json")
	_ = os.WriteFile(draft, []byte(`{"adapter": {"id": "org.example.demo", "name": "Demo", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.wasm"}}`), 0o644)
	code, signed, errs := e.bare("sign", draft, "--key", filepath.Join(dir, "k", "private.pem"))
	if code != 0 {
		t.Fatalf("sign: %s", errs)
	}
	card := filepath.Join(folder, "adapter.json")
	_ = os.WriteFile(card, []byte(signed), 0o644)
	code, out, _ := e.bare("verify", card)
	if code != 1 || !strings.Contains(out, "no trusted key") || !strings.Contains(out, "--jwks") || !strings.Contains(out, "discovery.keys") {
		t.Fatalf("verify without keys: exit %d, %q; want 1 and a hint naming --jwks and discovery.keys", code, out)
	}
}
