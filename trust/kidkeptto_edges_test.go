package trust

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestUnknownKidNamesURLEntryKeptToAnotherKid: a discovery.keys jwks_url
// entry with a kid keeps that key of the set only. A card signed with
// another key of the hub (one rotated in) was refused as `no trusted key
// has key id "hub-2026"`, nothing more — as if no keys were configured —
// since the entry is not looked in. The refusal names the entry and the
// kid it is kept to, beside the key files' key ids and the URLs looked in.
func TestUnknownKidNamesURLEntryKeptToAnotherKid(t *testing.T) {
	signer, err := GenerateKey("EdDSA", "hub-2026")
	if err != nil {
		t.Fatal(err)
	}
	card, err := SignCard([]byte(`{"adapter":{"id":"org.example.a","name":"A","version":"1.0.0","protocol_version":"0.3.0"}}`), signer)
	if err != nil {
		t.Fatal(err)
	}
	const kept = "https://hub.example/.well-known/jwks.json"
	store, err := LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWKSURL: kept, KeyID: "hub-2025"}}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = VerifyCard(context.Background(), card, store)
	if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), kept) || !strings.Contains(err.Error(), `"hub-2025"`) {
		t.Errorf("err = %v, want ErrUnknownKey naming the jwks_url and the kid it is kept to", err)
	}

	// Beside a URL that is looked in, and a key file's keys.
	other, err := GenerateKey("EdDSA", "mirror-key")
	if err != nil {
		t.Fatal(err)
	}
	jwks := mustJWKS(t, other)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(jwks) }))
	defer srv.Close()
	store.AddJWKSURL(srv.URL, abi.Community)
	_, err = VerifyCard(context.Background(), card, store)
	if !errors.Is(err, ErrKeyNotPublished) || !strings.Contains(err.Error(), kept) || !strings.Contains(err.Error(), srv.URL+` has "mirror-key"`) {
		t.Errorf("with another URL: err = %v, want ErrKeyNotPublished naming both URLs", err)
	}
}
