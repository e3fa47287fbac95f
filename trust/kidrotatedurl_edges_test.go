package trust

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestJWKSURLKeyRotatedUnderSameKid: a hub that rotates its signing key
// under a fixed kid ("hub-signing-key", as seed 001's example names one
// "aios-adapter-key-001") publishes the new key under the old kid. A card
// the new key signed was refused as ErrTampered — "tampered card or wrong
// key" — while the old key stayed cached (10 minutes), and discovery
// does not look again at a unit refused so. The set is fetched again (at
// most every MinRefetch) when its key of the kid does not verify, and the
// card verifies once the new key is there; a card that is really
// tampered is still refused, without a fetch per look.
func TestJWKSURLKeyRotatedUnderSameKid(t *testing.T) {
	oldKey, err := GenerateKey("ES256", "hub-signing-key")
	if err != nil {
		t.Fatal(err)
	}
	newKey, err := GenerateKey("EdDSA", "hub-signing-key")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	serving := mustJWKS(t, oldKey)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		mu.Lock()
		defer mu.Unlock()
		_, _ = w.Write(serving)
	}))
	defer srv.Close()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	store := NewKeyStore(nil)
	store.SetClock(func() time.Time { return now })
	store.AddJWKSURL(srv.URL, abi.Verified)
	sign := func(k SigningKey, id string) []byte {
		card, err := SignCard([]byte(`{"adapter":{"id":"`+id+`","name":"A","version":"1.0.0","protocol_version":"0.3.0"}}`), k)
		if err != nil {
			t.Fatal(err)
		}
		return card
	}
	if _, err := VerifyCard(context.Background(), sign(oldKey, "org.example.a"), store); err != nil {
		t.Fatalf("a card of the key published: %v", err)
	}

	// The hub rotates: the same kid, another key (and algorithm).
	mu.Lock()
	serving = mustJWKS(t, newKey)
	mu.Unlock()
	now = now.Add(time.Minute) // past MinRefetch, well within the TTL
	v, err := VerifyCard(context.Background(), sign(newKey, "org.example.b"), store)
	if err != nil {
		t.Fatalf("a card of the key rotated in under the same kid: %v", err)
	}
	if v.Algorithm != "EdDSA" || v.Trust != abi.Verified {
		t.Errorf("verified %+v", v)
	}

	// A tampered card is refused, and looks within MinRefetch fetch
	// nothing.
	tampered := bytes.Replace(sign(newKey, "org.example.c"), []byte("org.example.c"), []byte("org.example.d"), 1)
	before := hits.Load()
	for range 3 {
		if _, err := VerifyCard(context.Background(), tampered, store); !errors.Is(err, ErrTampered) {
			t.Fatalf("tampered card: err = %v, want ErrTampered", err)
		}
	}
	if n := hits.Load() - before; n != 0 {
		t.Errorf("tampered card looked at 3 times within MinRefetch of a fetch: %d fetches, want 0", n)
	}
}
