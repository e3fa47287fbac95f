package server

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
)

// TestShortTokenWarned: a bearer token of a few characters was taken
// without a word, though nothing slows a peer trying tokens (401s are not
// counted). It is still taken, with a warning naming its entry (never
// the token); a token of 16 or more characters is not warned about.
func TestShortTokenWarned(t *testing.T) {
	dir := t.TempDir()
	doc := "plugins: []\ndata: " + filepath.Join(dir, "data") + "\naudit: {disabled: true}\n" +
		"agents:\n  cli: {grants: ['CallTool(*)']}\n  peer: {grants: ['CallTool(*)']}\n" +
		"server:\n  tokens: [{agent: cli, token: abc123, name: short}, {agent: peer, token: 0123456789abcdef, name: long}]\n"
	cfg, err := config.Parse([]byte(doc), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	var logs bytes.Buffer
	s, err := New(Options{Host: h, Config: cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	out := logs.String()
	if !strings.Contains(out, "server.tokens[0] is 6 characters long: a short token can be guessed") || !strings.Contains(out, "name=short") {
		t.Errorf("no warning for the 6-character token; log:\n%s", out)
	}
	if strings.Contains(out, "server.tokens[1]") || strings.Contains(out, "abc123") {
		t.Errorf("the log warns about the 16-character token, or shows a token:\n%s", out)
	}
}
