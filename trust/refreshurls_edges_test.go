package trust

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestRefreshURLsSeesChangesFetchedByLookups: RefreshURLs tells discovery
// when a jwks_url's keys changed, so that the providers of a key the hub
// removed are unloaded. It compared the set it fetched with the set last
// fetched, by anyone: a rotation (old key out, new key in) first fetched
// by the lookup of a card signed with the new key was never reported, and
// the providers of the removed key served on. It now reports every change
// of the set since its last call, whoever fetched it, and the keys
// getting too old to trust (MaxStale) and trusted again.
func TestRefreshURLsSeesChangesFetchedByLookups(t *testing.T) {
	oldKey, newKey := newKey(t, "ES256"), newKey(t, "ES256")
	oldKey.KeyID, newKey.KeyID = "vendor-2025", "vendor-2026"
	var mu sync.Mutex
	serve, _ := MarshalJWKS(oldKey.PublicJWK())
	down := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write(serve)
	}))
	defer srv.Close()
	store, err := LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWKSURL: srv.URL}}, "", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	store.SetClock(func() time.Time { return now })
	store.MinRefetch = 0
	ctx := context.Background()
	refresh := func(want bool, when string) {
		t.Helper()
		changed, _ := store.RefreshURLs(ctx)
		if changed != want {
			t.Fatalf("%s: RefreshURLs changed = %v, want %v", when, changed, want)
		}
	}
	if ks, err := store.Lookup(ctx, "vendor-2025"); err != nil || len(ks) != 1 {
		t.Fatalf("lookup: %v %v", ks, err)
	}
	refresh(false, "nothing changed")
	// The hub rotates; a card of the new key is looked at first.
	mu.Lock()
	serve, _ = MarshalJWKS(newKey.PublicJWK())
	mu.Unlock()
	if ks, err := store.Lookup(ctx, "vendor-2026"); err != nil || len(ks) != 1 {
		t.Fatalf("lookup of the new key: %v %v", ks, err)
	}
	refresh(true, "old key removed, seen by a lookup")
	refresh(false, "said once")
	// The hub goes down past MaxStale, then answers again.
	mu.Lock()
	down = true
	mu.Unlock()
	now = now.Add(store.MaxStale + time.Minute)
	refresh(true, "keys too old to trust")
	refresh(false, "too old, said once")
	mu.Lock()
	down = false
	mu.Unlock()
	now = now.Add(time.Minute)
	refresh(true, "keys trusted again")
	refresh(false, "trusted again, said once")
}
