package trust

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestJWKSKeysExpireWhenUnreachable: while its URL fails, a JWKS's keys
// keep verifying for MaxStale after the last good fetch (a short outage
// breaks nothing), then no longer (a key the owner removed does not
// verify for ever because the URL went down); a good fetch brings them
// back.
func TestJWKSKeysExpireWhenUnreachable(t *testing.T) {
	k := newKey(t, "EdDSA")
	jwks, err := MarshalJWKS(k.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write(jwks)
	}))
	defer srv.Close()
	store, err := LoadKeyConfigs([]KeyConfig{{Trust: "Community", JWKSURL: srv.URL}}, "", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	store.SetClock(func() time.Time { return now })
	signed, err := SignCard(readCard(t), k)
	if err != nil {
		t.Fatal(err)
	}
	verify := func() error {
		v, err := VerifyCard(context.Background(), signed, store)
		if err == nil && v.Trust != abi.Community {
			t.Fatalf("trust %v", v.Trust)
		}
		return err
	}
	if err := verify(); err != nil {
		t.Fatal(err)
	}
	down.Store(true)
	now = now.Add(store.MaxStale - time.Minute) // stale, refetch fails, still within MaxStale
	if err := verify(); err != nil {
		t.Fatalf("within MaxStale of the last fetch: %v", err)
	}
	now = now.Add(2 * time.Minute)
	err = verify()
	if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), "could not be fetched since") || !strings.Contains(err.Error(), "503") {
		t.Fatalf("past MaxStale with the URL down: %v", err)
	}
	down.Store(false)
	now = now.Add(store.MinRefetch)
	if err := verify(); err != nil {
		t.Fatalf("after the URL came back: %v", err)
	}
}
