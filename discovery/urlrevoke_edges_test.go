package discovery

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/trust"
)

// waitProvider waits (generously) until id is served (want) or not.
func waitProvider(t *testing.T, env *testEnv, id string, want bool, why string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for (env.h.Registry().Provider(id) != nil) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s served = %v, want %v; errors %v", why, id, !want, want, env.d.Errors())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestJWKSURLKeyRemovedUnloadsWithoutChange: a vendor removes its key from
// the hub's JWKS (a rotation's last step, a revocation). A provider loaded
// under it kept serving at the key's trust for as long as nothing in its
// folder changed and nobody called aios/registry.refresh, while a key
// removed from a jwks file unloads within remote_refresh: the URL was
// fetched only when a card was looked at. Discovery now fetches a URL
// whose keys are older than the cache's TTL every remote_refresh, and
// looks at the units again when its keys changed; the key back loads the
// provider again.
func TestJWKSURLKeyRemovedUnloadsWithoutChange(t *testing.T) {
	k := newTestKey(t, "Verified")
	hubURL, revoke := revocableJWKS(t, k)
	card := `{"adapter": {"id": "org.test.urlrev", "name": "R", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	env := newEnvWith(t, "remote_refresh: 150ms\nkeys: [{trust: Verified, jwks_url: "+hubURL+"}]\n", func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "urlrev"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"urlrev-echo"}})
	}, func(o *Options) {
		o.keyStore = func(s *trust.KeyStore) { s.TTL, s.MinRefetch = 0, 0 }
	})
	if p := env.h.Registry().Provider("org.test.urlrev"); p == nil || p.Trust.String() != "Verified" {
		t.Fatalf("not loaded at Verified: %v", env.d.Errors())
	}
	revoke(true)
	waitProvider(t, env, "org.test.urlrev", false, "key removed from the hub's JWKS")
	if e := env.d.Errors()[filepath.Join(env.dir, "urlrev")]; !strings.Contains(e, "unknown signing key") {
		t.Errorf("error %q should say the signing key is unknown now", e)
	}
	revoke(false)
	waitProvider(t, env, "org.test.urlrev", true, "key back in the hub's JWKS")
}

// TestJWKSURLUnreachableUnloadsAfterMaxStale: the hub stops answering.
// Its keys as last fetched keep verifying for MaxStale (24 h), then no
// longer — but a provider loaded under them kept serving past that for as
// long as nothing looked at its unit. It is unloaded once the keys are
// too old, saying why.
func TestJWKSURLUnreachableUnloadsAfterMaxStale(t *testing.T) {
	k := newTestKey(t, "Verified")
	jwks, err := trust.MarshalJWKS(k.key.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	var down atomic.Bool
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write(jwks)
	}))
	defer hub.Close()
	card := `{"adapter": {"id": "org.test.urldown", "name": "D", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	env := newEnvWith(t, "remote_refresh: 150ms\nkeys: [{trust: Verified, jwks_url: "+hub.URL+"}]\n", func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "urldown"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"urldown-echo"}})
	}, func(o *Options) {
		o.keyStore = func(s *trust.KeyStore) { s.TTL, s.MinRefetch, s.MaxStale = 0, 0, time.Second }
	})
	if p := env.h.Registry().Provider("org.test.urldown"); p == nil {
		t.Fatalf("not loaded: %v", env.d.Errors())
	}
	down.Store(true)
	waitProvider(t, env, "org.test.urldown", false, "hub down past MaxStale")
	if e := env.d.Errors()[filepath.Join(env.dir, "urldown")]; !strings.Contains(e, "503") {
		t.Errorf("error %q should say why the key set could not be fetched", e)
	}
	down.Store(false)
	waitProvider(t, env, "org.test.urldown", true, "hub back")
}
