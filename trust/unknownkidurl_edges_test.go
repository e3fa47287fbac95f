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

// TestUnknownKidAtURLNamesKeysThere: a card whose key_id the JWKS of a
// jwks_url (verify --jwks-url, or discovery.keys) does not list was
// refused as `not in the config's keys nor in the JWKS of URL as last
// fetched`, naming config keys where there were none (verify --jwks-url
// uses no config) and not the key ids the URL does list, which a key file
// names (TestUnknownKidNamesKeysLookedIn): a wrong URL and a card signed
// with a rotated-out key read the same. The refusal names the key ids of
// each URL looked in, and the config's keys only when there are some.
func TestUnknownKidAtURLNamesKeysThere(t *testing.T) {
	signer, err := GenerateKey("EdDSA", "old-key")
	if err != nil {
		t.Fatal(err)
	}
	trusted, err := GenerateKey("EdDSA", "new-key")
	if err != nil {
		t.Fatal(err)
	}
	jwks, err := MarshalJWKS(trusted.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(jwks) }))
	defer srv.Close()
	card, err := SignCard([]byte(`{"adapter":{"id":"org.example.a","name":"A","version":"1.0.0","protocol_version":"0.3.0"}}`), signer)
	if err != nil {
		t.Fatal(err)
	}

	store := NewKeyStore(nil)
	store.AddJWKSURL(srv.URL, abi.Verified)
	_, err = VerifyCard(context.Background(), card, store)
	if !errors.Is(err, ErrUnknownKey) || !errors.Is(err, ErrKeyNotPublished) {
		t.Fatalf("err = %v, want ErrUnknownKey and ErrKeyNotPublished", err)
	}
	msg := err.Error()
	for _, want := range []string{`"old-key"`, srv.URL + ` has "new-key"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %s", msg, want)
		}
	}
	if strings.Contains(msg, "config's keys") {
		t.Errorf("error %q speaks of config keys; there are none", msg)
	}

	// With keys of a file too, both are named.
	other, err := GenerateKey("EdDSA", "file-key")
	if err != nil {
		t.Fatal(err)
	}
	fk, err := ParseJWKS(mustJWKS(t, other), abi.Verified, "keys/file.json")
	if err != nil {
		t.Fatal(err)
	}
	store.Add(fk...)
	_, err = VerifyCard(context.Background(), card, store)
	if err == nil || !strings.Contains(err.Error(), `keys/file.json has "file-key"`) || !strings.Contains(err.Error(), srv.URL+` has "new-key"`) {
		t.Errorf("with a key file too: err = %v, want both named with their key ids", err)
	}
}

func mustJWKS(t *testing.T, k SigningKey) []byte {
	t.Helper()
	b, err := MarshalJWKS(k.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	return b
}
