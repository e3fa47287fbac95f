package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeygenSignVerify(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	for _, alg := range []string{"ES256", "RS256", "EdDSA"} {
		code, out, errs := e.bare("keygen", "--alg", alg, "--out", filepath.Join(dir, alg))
		if code != 0 || !strings.Contains(out, "key id:") {
			t.Fatalf("keygen %s: %d %s %s", alg, code, out, errs)
		}
	}
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", filepath.Join(dir, "EdDSA")); code != 1 || !strings.Contains(errs, "exists") {
		t.Fatalf("keygen over existing files: %d %s", code, errs)
	}
	if code, _, _ := e.bare("keygen", "--alg", "HS256", "--out", filepath.Join(dir, "x")); code != 2 {
		t.Fatalf("keygen HS256: %d", code)
	}
	folder := filepath.Join(dir, "adapter")
	_ = os.MkdirAll(folder, 0o755)
	_ = os.WriteFile(filepath.Join(folder, "tool.wasm"), []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	card := `{"adapter": {"id": "org.example.demo", "name": "Demo", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "demo", "name": "Demo", "permission_level": "low"}],
  "artifact": {"path": "tool.wasm"}}`
	unsigned := filepath.Join(folder, "unsigned.json")
	_ = os.WriteFile(unsigned, []byte(card), 0o644)
	for _, alg := range []string{"ES256", "RS256", "EdDSA"} {
		code, signed, errs := e.bare("sign", unsigned, "--key", filepath.Join(dir, alg, "private.pem"))
		if code != 0 {
			t.Fatalf("sign %s: %d %s", alg, code, errs)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(signed), &m); err != nil {
			t.Fatalf("signed card is not JSON: %v", err)
		}
		if m["artifact"].(map[string]any)["sha256"] == "" || m["signature"].(map[string]any)["algorithm"] != alg {
			t.Fatalf("signed card %s", signed)
		}
		path := filepath.Join(folder, "adapter.json")
		_ = os.WriteFile(path, []byte(signed), 0o644)
		if code, out, _ := e.bare("verify", path, "--jwks", filepath.Join(dir, alg, "jwks.json")); code != 0 || !strings.HasPrefix(out, "valid") {
			t.Fatalf("verify %s: %d %s", alg, code, out)
		}
	}
	path := filepath.Join(folder, "adapter.json")
	jwks := filepath.Join(dir, "EdDSA", "jwks.json")
	signed, _ := os.ReadFile(path)
	cases := []struct {
		name    string
		prepare func()
		jwks    string
		want    string
	}{
		{"wrong-key", func() {}, filepath.Join(dir, "ES256", "jwks.json"), "no trusted key"},
		{"tampered-card", func() { _ = os.WriteFile(path, []byte(strings.Replace(string(signed), "Demo", "Demon", 1)), 0o644) }, jwks, "does not verify"},
		{"tampered-artifact", func() {
			_ = os.WriteFile(path, signed, 0o644)
			_ = os.WriteFile(filepath.Join(folder, "tool.wasm"), []byte("\x00asm\x01\x00\x00\x00evil"), 0o644)
		}, jwks, "pins"},
		{"unsigned", func() { _ = os.WriteFile(path, []byte(card), 0o644) }, jwks, "not signed"},
	}
	for _, c := range cases {
		c.prepare()
		code, out, _ := e.bare("verify", path, "--jwks", c.jwks)
		if code != 1 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, %q; want 1 and %q", c.name, code, out, c.want)
		}
	}
}

func TestRunSocketClient(t *testing.T) {
	e := newEnv(t)
	sock := filepath.Join(e.data, "test.sock")
	// Wait for the last line run prints (HTTP comes after the socket line).
	r := e.startRun("HTTP on http://127.0.0.1:", "--socket", sock, "--http", "127.0.0.1:0")
	if log := r.stderr.String(); !strings.Contains(log, "org.aios.samples.complexity") || !strings.Contains(log, "HTTP on http://127.0.0.1:") {
		t.Errorf("run did not print what it loaded and where it listens: %s", log)
	}
	code, listOut, errs := e.run("", "list", "--json", "--socket", sock)
	if code != 0 {
		t.Fatalf("list over the socket: %d %s", code, errs)
	}
	var tools []map[string]any
	if err := json.Unmarshal([]byte(listOut), &tools); err != nil || len(tools) != 1 || tools[0]["name"] != "analyze-complexity" {
		t.Fatalf("list --json over the socket: %s (%v)", listOut, err)
	}
	code, callOut, _ := e.run("", "call", "analyze-complexity", `{"object_id": "bad"}`, "--json", "--socket", sock)
	if code != 1 || !strings.Contains(callOut, `"code":"InvalidParams"`) {
		t.Fatalf("call over the socket: %d %s", code, callOut)
	}
	if code, _, errs := e.run("", "call", "analyze-complexity", "{}", "--as", "cli", "--socket", sock); code != 2 || !strings.Contains(errs, "--as") {
		t.Fatalf("--as with --socket: %d %s", code, errs)
	}
	if code, _, errs := e.run("", "list", "--socket", filepath.Join(e.data, "none.sock")); code != 1 || !strings.Contains(errs, "no host answers") {
		t.Fatalf("list on a dead socket: %d %s", code, errs)
	}
	r.stop()
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("socket left behind: %v", err)
	}
}

// TestVerifySaysKeyExpiry: `verify` of a card whose key has an expiry
// ("exp" in the JWKS) says when the key, and so the card, stops verifying:
// an operator otherwise learned it when discovery refused the card.
func TestVerifySaysKeyExpiry(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", filepath.Join(dir, "k")); code != 0 {
		t.Fatalf("keygen: %d %s", code, errs)
	}
	card := filepath.Join(dir, "card.json")
	if err := os.WriteFile(card, []byte(`{"adapter": {"id": "org.example.demo", "name": "Demo", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "demo", "name": "Demo", "permission_level": "low"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, signed, errs := e.bare("sign", card, "--key", filepath.Join(dir, "k", "private.pem"))
	if code != 0 {
		t.Fatalf("sign: %d %s", code, errs)
	}
	if err := os.WriteFile(card, []byte(signed), 0o644); err != nil {
		t.Fatal(err)
	}
	jwks := filepath.Join(dir, "k", "jwks.json")
	if code, out, _ := e.bare("verify", card, "--jwks", jwks); code != 0 || strings.Contains(out, "expire") {
		t.Fatalf("verify, key without exp: %d %q", code, out)
	}
	raw, err := os.ReadFile(jwks)
	if err != nil {
		t.Fatal(err)
	}
	var set map[string]any
	if err := json.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	set["keys"].([]any)[0].(map[string]any)["exp"] = 4102444800 // 2100-01-01
	raw, _ = json.Marshal(set)
	if err := os.WriteFile(jwks, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.bare("verify", card, "--jwks", jwks)
	if code != 0 || !strings.HasPrefix(out, "valid") || !strings.Contains(out, "key expires 2100-01-01T00:00:00Z") {
		t.Fatalf("verify, key with exp: %d %q %q, want valid and the key's expiry", code, out, errs)
	}
}
