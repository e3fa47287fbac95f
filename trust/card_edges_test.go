package trust

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/aios-host/aios-host/abi"
)

func probeKeys(t *testing.T) (SigningKey, *KeyStore) {
	t.Helper()
	k, err := GenerateKey("EdDSA", "probe")
	if err != nil {
		t.Fatal(err)
	}
	jwks, err := MarshalJWKS(k.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	ks, err := ParseJWKS(jwks, abi.Verified, "probe")
	if err != nil {
		t.Fatal(err)
	}
	store := NewKeyStore(nil)
	store.Add(ks...)
	return k, store
}

// TestArtifactCaseVariantMembers: VerifyCard returns the artifact
// pin the signature vouches for. encoding/json reads "Path" as "path", so
// a signed artifact holding both spellings was read as whichever came last,
// and JCS ignores member order: one signature, two artifacts. Such a pin is
// refused.
func TestArtifactCaseVariantMembers(t *testing.T) {
	k, keys := probeKeys(t)
	sum := strings.Repeat("a", 64)
	card := `{"adapter":{"id":"org.example.pin","name":"P","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},"skills":[],` +
		`"artifact":{"path":"tool.wasm","Path":"evil.wasm","sha256":"` + sum + `"}}`
	signed, err := SignCard([]byte(card), k)
	if err != nil {
		t.Fatal(err)
	}
	a, b := `"Path": "evil.wasm"`, `"path": "tool.wasm"`
	if !strings.Contains(string(signed), a) || !strings.Contains(string(signed), b) {
		t.Fatalf("unexpected signed form:\n%s", signed)
	}
	swapped := strings.NewReplacer(a, b, b, a).Replace(string(signed))
	var paths []string
	for _, c := range []string{string(signed), swapped} {
		v, err := VerifyCard(context.Background(), []byte(c), keys)
		if err != nil {
			if !strings.Contains(err.Error(), `"Path"`) {
				t.Errorf("error should name the member: %v", err)
			}
			continue
		}
		paths = append(paths, v.Artifact.Path)
	}
	if len(paths) != 0 {
		t.Fatalf("a pin with case-variant member names was accepted: artifact.path read as %v", paths)
	}
}

// TestInexactIntegerRefused: JCS reads numbers as doubles, so the
// integer literals 9007199254740992 and 9007199254740993 have one
// canonical form and one signature; the host reads integer literals
// exactly (abi's int64), so it would enforce the value the signer did not
// sign. An integer literal that a double cannot hold exactly is refused
// (CanonicalizeValue already refuses such an int64). Canonicalize
// itself follows RFC 8785 and takes it.
func TestInexactIntegerRefused(t *testing.T) {
	k, keys := probeKeys(t)
	card := `{"adapter":{"id":"org.example.num","name":"N","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},` +
		`"skills":[{"id":"num","name":"N","permission_level":"low","input_schema":{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992}}}}],` +
		`"endpoints":{"rpc":"https://127.0.0.1:1/rpc"}}`
	signed, err := SignCard([]byte(card), k)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyCard(context.Background(), signed, keys); err != nil {
		t.Fatalf("the signed card does not verify: %v", err)
	}
	tampered := strings.Replace(string(signed), "9007199254740992", "9007199254740993", 1)
	if tampered == string(signed) {
		t.Fatal("no number to tamper with")
	}
	if _, err := VerifyCard(context.Background(), []byte(tampered), keys); err == nil {
		t.Fatal("a card whose maximum was changed from 9007199254740992 to 9007199254740993 still verifies")
	} else if !strings.Contains(err.Error(), "9007199254740993") {
		t.Errorf("error should name the number: %v", err)
	}
	for _, in := range []string{`9007199254740993`, `-9007199254740993`, `18446744073709551615`, `9223372036854775807`, `9223372036854775808`} {
		if _, _, err := SigningPayload([]byte(`{"x-n":` + in + `}`)); err == nil {
			t.Errorf("SigningPayload accepted the integer %s, which a double cannot hold", in)
		}
	}
	for _, in := range []string{`9007199254740992`, `9007199254740994`, `-9007199254740992`, `9223372036854776000`, `100000000000000000000`, `123456789012345678901234`, `1e30`, `9007199254740993.0`, `0`, `-0`} {
		if _, _, err := SigningPayload([]byte(`{"x-n":` + in + `}`)); err != nil {
			t.Errorf("SigningPayload(%s): %v", in, err)
		}
	}
}

// TestSignedBigIntegerVerifies: what sign writes verifies. A double
// past 2^53 is written in its canonical form (2^63 as
// 9223372036854776000), and that form must verify, or a schema with a
// large bound could be signed but never loaded.
func TestSignedBigIntegerVerifies(t *testing.T) {
	k, keys := probeKeys(t)
	for _, n := range []string{"9223372036854776000", "1152921504606847000", "1e30", "9007199254740992"} {
		card := `{"adapter":{"id":"org.example.num","name":"N","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},` +
			`"skills":[],"endpoints":{"rpc":"https://127.0.0.1:1/rpc"},"x-n":` + n + `}`
		signed, err := SignCard([]byte(card), k)
		if err != nil {
			t.Errorf("%s: sign: %v", n, err)
			continue
		}
		if _, err := VerifyCard(context.Background(), signed, keys); err != nil {
			t.Errorf("%s: the signed card does not verify: %v", n, err)
		}
	}
}

// TestJWKSIgnoresKeysItCannotUse: RFC 7517 §5 — a JWK Set member of a
// key type or curve the verifier does not understand SHOULD be ignored.
// A hub's jwks.json holding an encryption key on P-384, or a symmetric
// key, beside its Ed25519 signing key made the whole set unusable: no card
// of the hub verified ("not in the key store and … P-384 …").
func TestJWKSIgnoresKeysItCannotUse(t *testing.T) {
	k, _ := probeKeys(t)
	pub, err := MarshalJWKS(k.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(pub, &set); err != nil {
		t.Fatal(err)
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := json.Marshal(jose.JSONWebKey{Key: &p384.PublicKey, KeyID: "hub-enc", Use: "enc", Algorithm: "ECDH-ES"})
	if err != nil {
		t.Fatal(err)
	}
	mixed := fmt.Sprintf(`{"keys":[%s,{"kty":"oct","k":"c2VjcmV0","kid":"hub-mac"},{"kty":"OKP","crv":"X25519","x":"hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo","kid":"hub-x"},%s]}`, enc, set.Keys[0])
	keys, err := ParseJWKS([]byte(mixed), abi.Verified, "hub.json")
	if err != nil {
		t.Fatalf("a JWKS with keys that cannot sign cards beside one that can is refused whole: %v", err)
	}
	if len(keys) != 1 || keys[0].JWK.KeyID != k.KeyID {
		t.Fatalf("keys %v, want only %q", keys, k.KeyID)
	}

	// Served at a jwks_url (a loopback test server), the signing key verifies.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(mixed))
	}))
	defer srv.Close()
	store := NewKeyStore(srv.Client())
	store.AddJWKSURL(srv.URL, abi.Community)
	signed, err := SignCard([]byte(`{"adapter":{"id":"org.example.hub","name":"H","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},"skills":[]}`), k)
	if err != nil {
		t.Fatal(err)
	}
	v, err := VerifyCard(context.Background(), signed, store)
	if err != nil {
		t.Fatalf("card signed by the hub's key: %v", err)
	}
	if v.Trust != abi.Community {
		t.Fatalf("trust %s", v.Trust)
	}

	// A set of which no key can verify cards is still an error naming why.
	only := fmt.Sprintf(`{"keys":[%s]}`, enc)
	if _, err := ParseJWKS([]byte(only), abi.Verified, "enc.json"); err == nil || !strings.Contains(err.Error(), "P-384") {
		t.Fatalf("a set without any usable key: %v", err)
	}
}

// TestArtifactFilesErrorNamesTheFile: a bad artifact.files name was
// reported as `malformed card signature: artifact.files: malformed card
// signature: artifact.path "../x.py" leaves the card's folder` — the
// sentinel twice and the wrong member named.
func TestArtifactFilesErrorNamesTheFile(t *testing.T) {
	sum := strings.Repeat("a", 64)
	for _, name := range []string{"../x.py", "/etc/x.py", `a\b.py`} {
		card := fmt.Sprintf(`{"artifact":{"path":"tool.wasm","sha256":%q,"files":{%q:%q}}}`, sum, name, sum)
		_, err := ArtifactOf([]byte(card))
		if err == nil {
			t.Fatalf("%s accepted", name)
		}
		msg := err.Error()
		if strings.Count(msg, ErrMalformed.Error()) != 1 || strings.Contains(msg, "artifact.path") || !strings.Contains(msg, "artifact.files") {
			t.Errorf("%s: %s", name, msg)
		}
	}
}

// TestPinSymlinkSaysSymlink: sign refused a folder holding a code
// file that is a symbolic link to a regular file with "x.txt is not a
// regular file", which it is once followed; the message says what it is.
func TestPinSymlinkSaysSymlink(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tool.wasm"), []byte("\x00asm"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "real.js")
	if err := os.WriteFile(outside, []byte("export {}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "lib.js")); err != nil {
		t.Fatal(err)
	}
	card := `{"adapter":{"id":"org.example.l","name":"L","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},"skills":[],"artifact":{"path":"tool.wasm"}}`
	_, _, err := PinArtifact([]byte(card), dir, "adapter.json")
	if err == nil {
		t.Fatal("a symbolic link among the code files was pinned")
	}
	if !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), "lib.js") {
		t.Fatalf("error should name the file and say it is a symbolic link: %v", err)
	}
}
