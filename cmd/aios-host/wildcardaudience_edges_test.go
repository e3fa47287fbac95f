package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWildcardAudienceWarned: /mcp takes a token whose aud is its
// resource URI, by default server.public_url + /mcp, and public_url by
// default http://<listen address>. `run --http 0.0.0.0:7700` (or :7700)
// with mcp.http.issuer and neither set made that http://0.0.0.0:7700/mcp,
// an address no client connects to and no authorization server issues
// tokens for: every token was refused (401 'token audience … is not this
// resource'), and an MCP client, finding that resource in the metadata,
// refuses it (RFC 9728 §3.3), while the operator's log said nothing. The
// start warns, naming the URI and the settings that fix it.
func TestWildcardAudienceWarned(t *testing.T) {
	e := newEnv(t)
	base := "mcp:\n  http:\n    issuer: https://auth.example.com\n    jwks_url: https://auth.example.com/jwks.json\n    agent: mcp\n"
	for _, tc := range []struct {
		name, cfg, addr string
		warn            bool
	}{
		{name: "wildcard", cfg: base, addr: "0.0.0.0:0", warn: true},
		{name: "loopback", cfg: base, addr: "127.0.0.1:0"},
		{name: "wildcard with public_url", cfg: base + "server:\n  public_url: https://box.example.com\n", addr: "0.0.0.0:0"},
		{name: "wildcard with resource", cfg: strings.Replace(base, "    agent: mcp\n", "    agent: mcp\n    resource: https://box.example.com/mcp\n", 1), addr: "0.0.0.0:0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeConfig(t, tc.cfg)
			r := e.startRun("HTTP on http://", "--config", cfg, "--socket", filepath.Join(e.data, "w.sock"), "--http", tc.addr)
			log := r.stderr.String()
			r.stop()
			warned := strings.Contains(log, "level=WARN") && strings.Contains(log, "mcp.http.resource") && strings.Contains(log, "server.public_url") && strings.Contains(log, "unspecified listen address")
			if warned != tc.warn {
				t.Errorf("warned %v, want %v: %s", warned, tc.warn, log)
			}
		})
	}
}
