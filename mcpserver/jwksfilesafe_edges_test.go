package mcpserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/aios-host/aios-host/config"
)

// TestJWKSFileWritableByOthers: mcp.http.jwks_file holds the keys
// whose tokens /mcp takes, and a token's scope picks its agent: whoever
// can write the file can add a key of their own and mint a token of any
// scope (aios.admin → cli). discovery.keys refuses a key file writable by
// group or others, or under such a folder (docs/trust.md); jwks_file was
// read whatever its mode, so another account on the machine called tools
// as any agent the scopes map. Such a file is refused: at start when it is
// there (naming FILE:LINE of the key), and at every fetch (it may be made
// writable later), the token refused with it.
func TestJWKSFileWritableByOthers(t *testing.T) {
	is := newIssuer(t)
	intruder, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	// The intruder's key, added to the file under the issuer's key id.
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &is.key.PublicKey, KeyID: is.kid, Algorithm: "ES256", Use: "sig"},
		{Key: &intruder.PublicKey, KeyID: is.kid, Algorithm: "ES256", Use: "sig"},
	}})
	for _, tc := range []struct {
		name           string
		dirMode, mode  os.FileMode
		wantSafe       bool
		wantInMessages string
	}{
		{name: "private", dirMode: 0o700, mode: 0o600, wantSafe: true},
		{name: "readable by all", dirMode: 0o755, mode: 0o644, wantSafe: true},
		{name: "file writable by others", dirMode: 0o700, mode: 0o666, wantInMessages: "writable by group or others"},
		{name: "file writable by group", dirMode: 0o700, mode: 0o620, wantInMessages: "writable by group or others"},
		{name: "folder writable by others", dirMode: 0o777, mode: 0o600, wantInMessages: "writable by group or others"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "keys")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "jwks.json")
			if err := os.WriteFile(path, set, 0o600); err != nil {
				t.Fatal(err)
			}
			// (chmod, not the create modes: the umask would clear the bits)
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.dirMode); err != nil {
				t.Fatal(err)
			}
			doc := "agents:\n  admin: {grants: ['CallTool(*)']}\nmcp:\n  http:\n    resource: http://aios.test/mcp\n    issuer: " + is.url +
				"\n    jwks_file: " + path + "\n    scopes: [{scope: aios.admin, agent: admin}]\n"
			cfg, err := config.Parse([]byte(doc), filepath.Join(t.TempDir(), "c.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if err := AddDefaultAgent(cfg); err != nil {
				t.Fatal(err)
			}
			c, lerr := LoadConfig(cfg)
			// At every fetch too: the verifier built from the keys as
			// written (a file made writable after the start).
			c.HTTP.JWKSFile = path
			c.HTTP.Issuer, c.HTTP.Scopes = is.url, []ScopeAgent{{Scope: "aios.admin", Agent: "admin"}}
			v := newVerifier(c.HTTP, func() string { return "http://aios.test/mcp" }, nil)
			forged := is.token(t, tokenOpts{aud: "http://aios.test/mcp", scope: "aios.admin", signer: intruder})
			id, verr := v.verify(context.Background(), forged)
			if tc.wantSafe {
				if lerr != nil {
					t.Fatalf("LoadConfig refused a safe jwks_file: %v", lerr)
				}
				if verr != nil || id.agent != "admin" {
					t.Fatalf("a key of a safe jwks_file: agent %q, %v", id.agent, verr)
				}
				return
			}
			if verr == nil {
				t.Errorf("a token signed by a key another account added to jwks_file acts as agent %q", id.agent)
			} else if !strings.Contains(verr.Error(), tc.wantInMessages) || !strings.Contains(verr.Error(), "jwks_file") {
				t.Errorf("refusal does not say the jwks_file is unsafe: %v", verr)
			}
			if lerr == nil {
				t.Errorf("LoadConfig took a jwks_file %s", tc.wantInMessages)
			} else if !strings.Contains(lerr.Error(), "c.yaml:") || !strings.Contains(lerr.Error(), "mcp.http.jwks_file") || !strings.Contains(lerr.Error(), tc.wantInMessages) {
				t.Errorf("LoadConfig's refusal does not name the key, its line and why: %v", lerr)
			}
		})
	}
}
