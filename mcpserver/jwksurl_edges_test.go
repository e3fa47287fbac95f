package mcpserver

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestJWKSURLChecked: an mcp.http.jwks_url or issuer that is no
// http(s) URL (a scheme forgotten: auth.example.com/jwks.json) was taken:
// the host started, and every MCP client then got 503 "token verification
// unavailable: issuer keys: Get "auth.example.com/jwks.json": unsupported
// protocol scheme" while the operator's log said nothing. It is refused
// at start with the key's line, as mcp.http.resource is.
func TestJWKSURLChecked(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"mcp:\n  http:\n    issuer: https://auth.example.com\n    jwks_url: auth.example.com/jwks.json\n", `c.yaml:4: mcp.http.jwks_url: "auth.example.com/jwks.json" is not an http(s) URL`},
		{"mcp:\n  http:\n    issuer: https://auth.example.com\n    jwks_url: 'ftp://auth.example.com/jwks.json'\n", `c.yaml:4: mcp.http.jwks_url: "ftp://auth.example.com/jwks.json" is not an http(s) URL`},
		{"mcp:\n  http:\n    issuer: auth.example.com\n    jwks_url: https://auth.example.com/jwks.json\n", `c.yaml:3: mcp.http.issuer: "auth.example.com" is not an http(s) URL`},
	} {
		cfg, err := config.Parse([]byte(tc.doc), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := AddDefaultAgent(cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s…", tc.doc, err, tc.want)
		}
	}
	// Good ones still load.
	cfg, _ := config.Parse([]byte("mcp:\n  http:\n    issuer: https://auth.example.com/realms/x\n    jwks_url: http://keycloak:8080/realms/x/protocol/openid-connect/certs\n"), "c.yaml")
	_ = AddDefaultAgent(cfg)
	if _, err := LoadConfig(cfg); err != nil {
		t.Errorf("a good issuer and jwks_url: %v", err)
	}
}
