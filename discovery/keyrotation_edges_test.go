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

// TestRotatedKeyPublishedLaterLoads: a vendor rotates its key: the
// card signed with the new key reaches the plugin folder before the hub's
// JWKS lists that key (a cached jwks.json, a deploy order). The card was
// refused as "no trusted key has key id" and stayed refused until a
// change in its folder, a refresh or a restart, while a hub that did not
// answer at all was tried again every remote_refresh. A kid that a
// configured JWKS URL may still publish is tried again alike, and the
// provider loads once the hub lists the key; the refusal names the URL.
func TestRotatedKeyPublishedLaterLoads(t *testing.T) {
	old, err := trust.GenerateKey("ES256", "vendor-2025")
	if err != nil {
		t.Fatal(err)
	}
	k := newTestKey(t, "Verified")
	k.key.KeyID = "vendor-2026"
	before, _ := trust.MarshalJWKS(old.PublicJWK())
	after, _ := trust.MarshalJWKS(old.PublicJWK(), k.key.PublicJWK())
	var published atomic.Bool
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if published.Load() {
			_, _ = w.Write(after)
			return
		}
		_, _ = w.Write(before)
	}))
	defer hub.Close()
	card := `{"adapter": {"id": "org.test.rotated", "name": "R", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	env := newEnvWith(t, "remote_refresh: 150ms\nkeys: [{trust: Verified, jwks_url: "+hub.URL+"}]\n", func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "rotated"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"rotated-echo"}})
	}, func(o *Options) { o.keyStore = func(s *trust.KeyStore) { s.MinRefetch = 0 } })
	unit := filepath.Join(env.dir, "rotated")
	if p := env.h.Registry().Provider("org.test.rotated"); p != nil {
		t.Fatalf("loaded before its key was published")
	}
	if e := env.d.Errors()[unit]; !strings.Contains(e, "vendor-2026") || !strings.Contains(e, hub.URL) {
		t.Fatalf("error %q should name the kid and the JWKS looked in", e)
	}
	time.Sleep(300 * time.Millisecond)
	published.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for env.h.Registry().Provider("org.test.rotated") == nil {
		if time.Now().After(deadline) {
			t.Fatalf("not loaded after the hub published its key: %v", env.d.Errors())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if p := env.h.Registry().Provider("org.test.rotated"); p.Trust.String() != "Verified" {
		t.Fatalf("trust %s", p.Trust)
	}
}
