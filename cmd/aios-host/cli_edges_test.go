package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAuditVerifyReadErrors: a file that cannot be read is named once
// ("read X: read X: is a directory" before).
func TestAuditVerifyReadErrors(t *testing.T) {
	e := newEnv(t)
	code, _, errs := e.run("", "audit", "verify", e.plugins)
	if code != exitFail || strings.Count(errs, e.plugins) != 1 {
		t.Errorf("verify of a folder: %d %q", code, errs)
	}
	code, _, errs = e.run("", "audit", "verify", e.plugins+"/none.jsonl")
	if code != exitFail || strings.Count(errs, "none.jsonl") != 1 {
		t.Errorf("verify of a missing file: %d %q", code, errs)
	}
}

// TestCallTimeoutZero: README says --timeout is at least 1ms, but an
// explicit 0 was taken as "no --timeout" (the default deadline).
func TestCallTimeoutZero(t *testing.T) {
	e := newEnv(t)
	code, _, errs := e.run("", "call", "analyze-complexity", "{}", "--timeout", "0")
	if code != exitUsage || !strings.Contains(errs, "--timeout 0s is below 1ms") {
		t.Errorf("--timeout 0: %d %q", code, errs)
	}
}

// TestEndlessInputFiles: a file argument that never ends (/dev/zero,
// or a file far larger than any valid one) was read to its end: the
// command grew without bound and never answered.
func TestEndlessInputFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	e := newEnv(t)
	key := filepath.Join(t.TempDir(), "k")
	if code, _, errs := e.run("", "keygen", "--alg", "EdDSA", "--out", key); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	for _, args := range [][]string{
		{"verify", "/dev/zero", "--jwks", filepath.Join(key, "jwks.json")},
		{"verify", filepath.Join(key, "jwks.json"), "--jwks", "/dev/zero"},
		{"sign", "/dev/zero", "--key", filepath.Join(key, "private.pem")},
		{"sign", filepath.Join(key, "jwks.json"), "--key", "/dev/zero"},
		{"audit", "verify", "--signed-anchor", "/dev/zero", "--jwks", filepath.Join(key, "jwks.json")},
		{"space", "spaces", "--config", "/dev/zero"},
	} {
		done := make(chan struct{})
		var code int
		var errs string
		go func() {
			defer close(done)
			code, _, errs = e.run("", args...)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%q still reading /dev/zero after 20 s", args)
		}
		if code != exitFail || !strings.Contains(errs, "/dev/zero") || !strings.Contains(errs, "bytes") {
			t.Errorf("%q: %d %q", args, code, errs)
		}
	}
}

// TestSectionErrorsNameLine: values the owning packages check after
// decoding (runtimes.js.isolation, runtimes.python.wire, server.uids) were
// reported without the file and line README promises.
func TestSectionErrorsNameLine(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ yaml, want string }{
		{"limits: {}\nruntimes:\n  js: {isolation: bogus}\n", "c.yaml:3: runtimes.js.isolation: "},
		{"runtimes:\n  python:\n    wire: xml\n", "c.yaml:3: runtimes.python.wire: "},
	} {
		cfg := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(cfg, []byte(tc.yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, errs := e.run("", "list", "--config", cfg)
		if code != exitFail || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: %d %q, want %q", tc.yaml, code, errs, tc.want)
		}
	}
}

// TestHugeInputLimit: with limits.max_object_bytes (or
// max_params_bytes) at the largest int64 the read bound overflowed and
// `space put` stored an empty object instead of the file.
func TestHugeInputLimit(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte("limits:\n  max_object_bytes: 9223372036854775807\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("hello world\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const want = "sha256:a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447"
	code, out, errs := e.run("", "space", "put", "docs", file, "--config", cfg)
	if code != 0 || strings.TrimSpace(out) != want {
		t.Fatalf("space put: %d %q %q, want %s", code, out, errs, want)
	}
	code, out, errs = e.run("", "space", "get", "docs", want, "--config", cfg)
	if code != 0 || out != "hello world\n" {
		t.Fatalf("space get: %d %q %q", code, out, errs)
	}
}

// TestLocateSkipsFileName: an error that starts with the config
// file's own name (limits.yaml: …) is not taken for a key path.
func TestLocateSkipsFileName(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "limits.yaml")
	if err := os.WriteFile(name, []byte("limits:\n  max_call_depth: 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &cli{configFile: name}
	if _, err := c.config(); err != nil {
		t.Fatal(err)
	}
	msg := "limits.yaml: yaml: something"
	if got := c.locate(errors.New(msg)); got != msg {
		t.Errorf("locate = %q", got)
	}
	if got := c.locate(errors.New("limits.max_call_depth: x")); got != name+":2: limits.max_call_depth: x" {
		t.Errorf("locate = %q", got)
	}
}
