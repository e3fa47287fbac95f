package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyKeyFetchFailureIsNoVerdict: `verify --jwks-url URL` of a key
// set that could not be fetched (the server down, a 500) printed
// "invalid: …" and exit 1, as for a forged card: a script could not tell
// a network failure from a bad card (found by p185). It prints
// "unchecked: …", exit 3; a key set fetched that lacks the key is still
// invalid.
func TestVerifyKeyFetchFailureIsNoVerdict(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	keyDir := filepath.Join(dir, "key")
	if code, _, errs := e.bare("keygen", "--alg", "EdDSA", "--out", keyDir, "--kid", "k1"); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	card := filepath.Join(dir, "adapter.json")
	if err := os.WriteFile(card, []byte(`{"adapter": {"id": "org.example.demo", "name": "Demo", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "demo", "name": "Demo", "permission_level": "low"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, signed, errs := e.bare("sign", card, "--key", filepath.Join(keyDir, "private.pem"))
	if code != 0 {
		t.Fatalf("sign: %s", errs)
	}
	signedPath := filepath.Join(dir, "signed.json")
	if err := os.WriteFile(signedPath, []byte(signed), 0o600); err != nil {
		t.Fatal(err)
	}
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream down", http.StatusInternalServerError)
	}))
	defer down.Close()
	code, out, errs := e.bare("verify", signedPath, "--jwks-url", down.URL+"/jwks.json")
	if code != exitUnchecked || !strings.HasPrefix(out, "unchecked: ") || !strings.Contains(out, "500") {
		t.Fatalf("verify against a key set that could not be fetched: exit %d, stdout %q, stderr %q; want exit %d, unchecked", code, out, errs, exitUnchecked)
	}
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"keys": []}`))
	}))
	defer empty.Close()
	if code, out, _ := e.bare("verify", signedPath, "--jwks-url", empty.URL+"/jwks.json"); code != exitFail || !strings.HasPrefix(out, "invalid: ") {
		t.Fatalf("verify against a key set without the key: exit %d, %q; want exit 1, invalid", code, out)
	}
}
