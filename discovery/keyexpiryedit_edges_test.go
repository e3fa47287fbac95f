package discovery

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/trust"
)

// TestKeyGivenExpiryLaterUnloads: an operator retiring a key gives it an
// "exp" in its jwks file while the host runs. The file is read again and
// every unit looked at, but a unit whose card and trust were unchanged
// kept the verification it was loaded with, which said the key never
// expires: once the exp passed, the provider kept serving at the key's
// trust (aios-host verify and a restart refused it as expired) until its
// folder changed, a refresh or a restart. The unit is loaded again with
// its key's new validity, and unloaded within remote_refresh of the exp.
func TestKeyGivenExpiryLaterUnloads(t *testing.T) {
	k := newTestKey(t, "Verified")
	path := strings.TrimSuffix(k.cfg[strings.Index(k.cfg, "jwks: ")+len("jwks: "):], "}]\n")
	card := `{"adapter": {"id": "org.test.retired", "name": "R", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	env := newEnv(t, "remote_refresh: 150ms\n"+k.cfg, func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "retired"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"retired-echo"}})
	})
	if p := env.h.Registry().Provider("org.test.retired"); p == nil || p.Trust.String() != "Verified" {
		t.Fatalf("not loaded at Verified: %v %v", p, env.d.Errors())
	}
	// The key file now gives the key an exp a few seconds ahead.
	expires := time.Now().Add(3 * time.Second).Truncate(time.Second).Add(time.Second)
	var jwk map[string]any
	raw, err := json.Marshal(k.key.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &jwk); err != nil {
		t.Fatal(err)
	}
	jwk["exp"] = expires.Unix()
	set, _ := json.Marshal(map[string]any{"keys": []any{jwk}})
	writeFile(t, path, string(set))
	if _, err := trust.ParseJWKS(set, 0, path); err != nil {
		t.Fatal(err)
	}
	deadline := expires.Add(20 * time.Second)
	for env.h.Registry().Provider("org.test.retired") != nil {
		if time.Now().After(deadline) {
			t.Fatalf("still served %s after its key expired at %s", time.Since(expires).Round(time.Second), expires)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if time.Now().Before(expires) {
		t.Fatalf("unloaded before its key expired (%s): %v", expires, env.d.Errors())
	}
	if e := env.d.Errors()[filepath.Join(env.dir, "retired")]; !strings.Contains(e, "expired") {
		t.Errorf("error %q should say the signing key expired", e)
	}
}
