package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/aios-host/aios-host/config"
)

// TestJWKSFileRelativeToConfig: the README says key and token files
// named in the config (discovery.keys, server.signing_key,
// server.tokens[].token_file) are taken from the config file's folder, so
// that they travel with it, and that a leading "~/" is the home folder.
// mcp.http.jwks_file was read as written, from the host's working
// directory (/ under systemd) and with "~" taken for a folder name: the
// host started, and every client then got 503 "token verification
// unavailable: issuer keys: jwks_file: open keys/jwks.json: no such file".
func TestJWKSFileRelativeToConfig(t *testing.T) {
	is := newIssuer(t)
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &is.key.PublicKey, KeyID: is.kid, Algorithm: "ES256", Use: "sig"}}})
	confDir, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	for _, dir := range []string{filepath.Join(confDir, "keys"), filepath.Join(home, "keys")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "jwks.json"), set, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The working directory holds no keys; the config file is named by
	// an absolute path, then by one relative to the working directory
	// (a merge once took a relative config file's folder twice).
	t.Chdir(filepath.Dir(confDir))
	for _, cfgPath := range []string{filepath.Join(confDir, "c.yaml"), filepath.Join(filepath.Base(confDir), "c.yaml")} {
		for _, path := range []string{"keys/jwks.json", "~/keys/jwks.json"} {
			doc := "mcp:\n  http:\n    resource: http://aios.test/mcp\n    issuer: " + is.url + "\n    jwks_file: " + path + "\n    agent: mcp\n"
			cfg, err := config.Parse([]byte(doc), cfgPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := AddDefaultAgent(cfg); err != nil {
				t.Fatal(err)
			}
			c, err := LoadConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			v := newVerifier(c.HTTP, func() string { return "http://aios.test/mcp" }, nil)
			if _, err := v.verify(context.Background(), is.token(t, tokenOpts{aud: "http://aios.test/mcp", scope: "s"})); err != nil {
				t.Errorf("jwks_file: %s (config %s): %v", path, cfgPath, err)
			}
		}
	}
}

// TestJWKSFileMissingRefused: an mcp.http.jwks_file that is not there
// was taken by LoadConfig and every token refused at its first use, the
// cause in no log at start; LoadConfig now names the key and the path.
func TestJWKSFileMissingRefused(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "c.yaml")
	doc := "agents:\n  mcp:\n    grants: [\"CallTool(*)\"]\nmcp:\n  http:\n    issuer: https://auth.example.com\n    jwks_file: keys/jwks.json\n"
	if err := os.WriteFile(cfgPath, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LoadConfig(cfg)
	want := filepath.Join(dir, "keys", "jwks.json")
	if err == nil || !strings.Contains(err.Error(), "mcp.http.jwks_file") || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("LoadConfig with a missing jwks_file: %v; want an error naming the key and %s", err, want)
	}
}
