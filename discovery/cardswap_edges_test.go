package discovery

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aios-host/aios-host/trust"
)

// TestCardSwappedAfterReadNotTrackedAsLoaded: a signed card (A, key
// test-key) is replaced by another validly signed one (B, other-key)
// between discovery's read of the card and its hash of the unit's files.
// A was verified and loaded, but the unit's digest was B's, so the unit
// looked unchanged from then on and each later look checked B's signature
// in place of the one serving: once test-key was revoked, A kept serving
// under it. The load now notices the card changed after its read (as a
// change during the load) and the next look loads B.
func TestCardSwappedAfterReadNotTrackedAsLoaded(t *testing.T) {
	k := newTestKey(t, "Verified")
	other, err := trust.GenerateKey("ES256", "other-key")
	if err != nil {
		t.Fatal(err)
	}
	otherJWKS, _ := trust.MarshalJWKS(other.PublicJWK())
	otherFile := filepath.Join(t.TempDir(), "other.json")
	writeFile(t, otherFile, string(otherJWKS))
	jwks, _ := trust.MarshalJWKS(k.key.PublicJWK())
	var revoked atomic.Bool
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if revoked.Load() {
			_, _ = w.Write([]byte(`{"keys":[]}`))
			return
		}
		_, _ = w.Write(jwks)
	}))
	defer hub.Close()
	card := func(v string) string {
		return `{"adapter": {"id": "org.test.swap", "name": "S", "version": "` + v + `", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	}
	inner := fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"swap-echo"}}
	env := newEnv(t, "watch: false\nkeys: [{trust: Verified, jwks_url: "+hub.URL+"}, {trust: Verified, jwks: "+otherFile+"}]\n", func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "vendor"), card("1.0.0"), inner)
	})
	unit := filepath.Join(env.dir, "vendor")
	stage := filepath.Join(t.TempDir(), "b")
	signedFolder(t, testKey{key: other}, stage, card("1.0.1"), inner)
	b, err := os.ReadFile(filepath.Join(stage, "adapter.json"))
	if err != nil {
		t.Fatal(err)
	}
	cardA := filepath.Join(unit, "adapter.json")
	a, err := os.ReadFile(cardA)
	if err != nil {
		t.Fatal(err)
	}
	// Change the folder (so the next look loads it) and swap the card for
	// B just after the load has read A.
	if err := os.WriteFile(cardA, append(a, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	descriptionRead = func(path string) {
		if path == cardA {
			once.Do(func() {
				if err := os.WriteFile(cardA, b, 0o644); err != nil {
					t.Error(err)
				}
			})
		}
	}
	t.Cleanup(func() { descriptionRead = func(string) {} })
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	descriptionRead = func(string) {}
	revoked.Store(true)
	env.d.Keys().TTL, env.d.Keys().MinRefetch = 0, 0
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	ad, ok := env.d.Adapter("org.test.swap")
	if !ok || !ad.Active {
		t.Fatalf("nothing serves org.test.swap, though its folder holds a card other-key signs: %+v %v", ad, env.d.Errors())
	}
	if ad.KeyID != "other-key" || ad.Card == nil || ad.Card.Adapter.Version != "1.0.1" {
		t.Fatalf("serving version %s signed by %q after that key was revoked; the folder holds 1.0.1 by other-key", ad.Card.Adapter.Version, ad.KeyID)
	}
}
