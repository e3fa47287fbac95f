package trust

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestJWKSFetchFailureRemembered: while a jwks_url answers with an error,
// the first card signed by one of its keys was refused as the fetch
// failing (ErrKeyFetch, naming the answer), but every other card looked
// at within MinRefetch of it — the next unit of a discovery pass, a
// second verify — as "no trusted key has key id …: not in the JWKS of URL
// as last fetched" (ErrKeyNotPublished), for a set never fetched at all.
// Each is refused as the failed fetch, and the URL is not fetched again
// before MinRefetch.
func TestJWKSFetchFailureRemembered(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	signer, err := GenerateKey("EdDSA", "hub-key")
	if err != nil {
		t.Fatal(err)
	}
	store := NewKeyStore(nil)
	store.AddJWKSURL(srv.URL, abi.Verified)
	for i, id := range []string{"org.example.a", "org.example.b"} {
		card, err := SignCard([]byte(`{"adapter":{"id":"`+id+`","name":"A","version":"1.0.0","protocol_version":"0.3.0"}}`), signer)
		if err != nil {
			t.Fatal(err)
		}
		_, err = VerifyCard(context.Background(), card, store)
		if !errors.Is(err, ErrUnknownKey) || !errors.Is(err, ErrKeyFetch) || errors.Is(err, ErrKeyNotPublished) {
			t.Errorf("card %d: err = %v, want ErrUnknownKey and ErrKeyFetch (not ErrKeyNotPublished)", i, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, srv.URL) || !strings.Contains(msg, "503") || strings.Contains(msg, "as last fetched") {
			t.Errorf("card %d: error %q does not name the URL and its answer (503), or speaks of a set last fetched", i, msg)
		}
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the URL was fetched %d times within MinRefetch, want 1", n)
	}
}
