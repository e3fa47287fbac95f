//go:build linux

package mcp

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/landlock"
	"github.com/aios-host/aios-host/internal/proclimit"
)

// TestSandbox: a stdio server with sandbox: reads beneath its read paths
// and not elsewhere (a secret beside them), writes beneath its write paths
// only, and opens no socket without network; the same server unconfined
// reaches all of it.
func TestSandbox(t *testing.T) {
	if v, err := landlock.Version(); err != nil || v < 4 {
		t.Skipf("Landlock ABI 4 is not available here (%d, %v): sandboxed servers are not started (TestSandboxUnavailable's message)", v, err)
	}
	allowed, secret, writable := t.TempDir(), t.TempDir(), t.TempDir()
	for _, f := range []string{filepath.Join(allowed, "ok.txt"), filepath.Join(secret, "secret.txt")} {
		if err := os.WriteFile(f, []byte("data"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	read := []string{allowed}
	if proclimit.Race {
		read = append(read, "/proc") // the race runtime reads /proc/self/maps
	}
	confined := fakeConfig(t, "sandbox")
	confined.Sandbox = &Sandbox{Read: read, Write: []string{writable}}
	networked := fakeConfig(t, "sandbox")
	networked.Sandbox = &Sandbox{Read: read, Network: true}
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"boxed": confined, "net": networked, "free": fakeConfig(t, "sandbox")})
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	reach := func(server string, args map[string]any) string {
		t.Helper()
		v, err := call(t, rec.provider("org.aios.mcp."+server), "mcp-"+server+"-reach", args, 10*time.Second)
		if err != nil {
			t.Fatalf("%s: %v\n%s", server, err, logs.String())
		}
		return v.(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	}
	denied := "permission denied"
	for _, tc := range []struct {
		server string
		args   map[string]any
		want   []string // substrings, in order
	}{
		{"boxed", map[string]any{"read": filepath.Join(allowed, "ok.txt")}, []string{"read=ok"}},
		{"boxed", map[string]any{"read": filepath.Join(secret, "secret.txt")}, []string{"read=", denied}},
		{"boxed", map[string]any{"read": "/root/.profile"}, []string{"read="}},
		{"boxed", map[string]any{"write": filepath.Join(writable, "new.txt")}, []string{"write=ok"}},
		{"boxed", map[string]any{"write": filepath.Join(allowed, "new.txt")}, []string{"write=", denied}},
		{"boxed", map[string]any{"dial": ln.Addr().String()}, []string{"dial=", denied}},
		{"net", map[string]any{"dial": ln.Addr().String()}, []string{"dial=ok"}},
		{"net", map[string]any{"read": filepath.Join(secret, "secret.txt")}, []string{"read=", denied}},
		{"free", map[string]any{"read": filepath.Join(secret, "secret.txt"), "write": filepath.Join(allowed, "free.txt"), "dial": ln.Addr().String()}, []string{"read=ok write=ok dial=ok"}},
	} {
		got := reach(tc.server, tc.args)
		rest := got
		for _, w := range tc.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s %v: %q, want %q", tc.server, tc.args, got, tc.want)
				break
			}
			rest = rest[i+len(w):]
		}
		if tc.server == "boxed" && strings.Contains(got, "/root/.profile") && strings.Contains(got, "=ok") {
			t.Errorf("boxed server read /root/.profile: %q", got)
		}
	}
	if b, err := os.ReadFile(filepath.Join(writable, "new.txt")); err != nil || string(b) != "x" {
		t.Errorf("the boxed server's write: %q %v", b, err)
	}
}

// TestSandboxConfig: sandbox applies to command servers, its paths are
// resolved against the configuration file's folder, and an empty one is
// refused.
func TestSandboxConfig(t *testing.T) {
	t.Setenv("HOME", "/home/someone")
	sc := ServerConfig{Command: "x", Sandbox: &Sandbox{Read: []string{"data", "/abs/./r", "~/.npm"}, Write: []string{"out/"}}}
	got, err := sc.normalize("s", "/etc/aios")
	if err != nil {
		t.Fatal(err)
	}
	if r, w := got.Sandbox.Read, got.Sandbox.Write; len(r) != 3 || r[0] != "/etc/aios/data" || r[1] != "/abs/r" || r[2] != "/home/someone/.npm" || len(w) != 1 || w[0] != "/etc/aios/out" {
		t.Fatalf("sandbox %+v", got.Sandbox)
	}
	for _, c := range []struct {
		sc   ServerConfig
		base string
		want string
	}{
		{ServerConfig{URL: "http://x", Sandbox: &Sandbox{}}, "/b", "command servers only"},
		{ServerConfig{Command: "x", Sandbox: &Sandbox{Read: []string{""}}}, "/b", "sandbox.read[0]: empty path"},
		{ServerConfig{Command: "x", Sandbox: &Sandbox{Write: []string{"rel"}}}, "", "sandbox.write[0]: \"rel\" is relative"},
	} {
		if _, err := c.sc.normalize("s", c.base); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.sc, err, c.want)
		}
	}
}
