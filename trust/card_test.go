package trust

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

func readCard(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/card.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newKey(t testing.TB, alg string) SigningKey {
	t.Helper()
	k, err := GenerateKey(alg, "")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func storeWith(trust abi.TrustLevel, keys ...SigningKey) *KeyStore {
	s := NewKeyStore(nil)
	for _, k := range keys {
		s.Add(&Key{JWK: k.PublicJWK(), Trust: trust, Source: "test"})
	}
	return s
}

func TestSignVerifyRoundTrip(t *testing.T) {
	for _, alg := range []string{"ES256", "RS256", "EdDSA"} {
		t.Run(alg, func(t *testing.T) {
			k := newKey(t, alg)
			signed, err := SignCard(readCard(t), k)
			if err != nil {
				t.Fatal(err)
			}
			v, err := VerifyCard(context.Background(), signed, storeWith(abi.Verified, k))
			if err != nil {
				t.Fatal(err)
			}
			if v.Trust != abi.Verified || v.KeyID != k.KeyID || v.Algorithm != alg {
				t.Fatalf("verified = %+v", v)
			}
			// Re-formatting the card (member order, white space) keeps it valid.
			var m map[string]any
			if err := json.Unmarshal(signed, &m); err != nil {
				t.Fatal(err)
			}
			compact, _ := json.Marshal(m)
			if _, err := VerifyCard(context.Background(), compact, storeWith(abi.Verified, k)); err != nil {
				t.Fatalf("reformatted card: %v", err)
			}
		})
	}
}

// forge builds a signature member by hand.
func forge(t *testing.T, card []byte, header map[string]any, sig func(signingInput string) []byte, member Signature) []byte {
	t.Helper()
	payload, _, err := SigningPayload(card)
	if err != nil {
		t.Fatal(err)
	}
	hb, _ := json.Marshal(header)
	h := base64.RawURLEncoding.EncodeToString(hb)
	input := h + "." + base64.RawURLEncoding.EncodeToString(payload)
	member.Value = h + ".." + base64.RawURLEncoding.EncodeToString(sig(input))
	var m map[string]any
	if err := json.Unmarshal(card, &m); err != nil {
		t.Fatal(err)
	}
	m["signature"] = member
	out, _ := json.Marshal(m)
	return out
}

func TestVerifyRejects(t *testing.T) {
	ctx := context.Background()
	es := newKey(t, "ES256")
	ed := newKey(t, "EdDSA")
	other := newKey(t, "ES256")
	card := readCard(t)
	signed, err := SignCard(card, es)
	if err != nil {
		t.Fatal(err)
	}
	store := storeWith(abi.Community, es, ed)

	tamper := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(signed, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	pubJWK, _ := json.Marshal(es.PublicJWK())
	hmacWithPublicKey := func(in string) []byte {
		mac := hmac.New(sha256.New, pubJWK)
		mac.Write([]byte(in))
		return mac.Sum(nil)
	}
	edSigned, err := SignCard(card, ed)
	if err != nil {
		t.Fatal(err)
	}
	// An EdDSA signature relabelled as ES256 under the EC key id.
	var edm map[string]any
	_ = json.Unmarshal(edSigned, &edm)
	edSig := edm["signature"].(map[string]any)

	expired := NewKeyStore(nil)
	expired.Add(&Key{JWK: es.PublicJWK(), Trust: abi.Verified, Source: "test", Expires: time.Now().Add(-time.Hour)})
	future := NewKeyStore(nil)
	future.Add(&Key{JWK: es.PublicJWK(), Trust: abi.Verified, Source: "test", NotBefore: time.Now().Add(time.Hour)})
	wrongAlgKey := NewKeyStore(nil)
	jwk := es.PublicJWK()
	jwk.Algorithm = "RS256"
	wrongAlgKey.Add(&Key{JWK: jwk, Trust: abi.Verified, Source: "test"})
	// The EC key registered under the Ed25519 key's id: alg EdDSA vs EC key.
	confused := NewKeyStore(nil)
	cj := es.PublicJWK()
	cj.KeyID = ed.KeyID
	cj.Algorithm = ""
	confused.Add(&Key{JWK: cj, Trust: abi.Verified, Source: "test"})

	cases := []struct {
		name  string
		card  []byte
		store *KeyStore
		kind  error
		msg   string
	}{
		{"unsigned", card, store, ErrUnsigned, "no \"signature\""},
		{"tampered-name", tamper(func(m map[string]any) { m["adapter"].(map[string]any)["name"] = "Evil" }), store, ErrTampered, "does not verify"},
		{"tampered-skill", tamper(func(m map[string]any) { m["skills"] = []any{} }), store, ErrTampered, "does not verify"},
		{"added-member", tamper(func(m map[string]any) { m["artifact"] = map[string]any{"path": "x.wasm"} }), store, ErrTampered, ""},
		{"unknown-key", signed, storeWith(abi.Verified, other), ErrUnknownKey, "no trusted key"},
		{"no-keys", signed, NewKeyStore(nil), ErrUnknownKey, ""},
		{"expired-key", signed, expired, ErrKeyExpired, "expired"},
		{"not-yet-valid-key", signed, future, ErrKeyExpired, "not valid before"},
		{"alg-none", forge(t, card, map[string]any{"alg": "none", "kid": es.KeyID}, func(string) []byte { return nil },
			Signature{Algorithm: "none", KeyID: es.KeyID}), store, ErrAlgorithm, `"none"`},
		{"hmac-with-public-key", forge(t, card, map[string]any{"alg": "HS256", "kid": es.KeyID}, hmacWithPublicKey,
			Signature{Algorithm: "HS256", KeyID: es.KeyID}), store, ErrAlgorithm, "HMAC"},
		{"header-alg-differs", forge(t, card, map[string]any{"alg": "HS256", "kid": es.KeyID}, hmacWithPublicKey,
			Signature{Algorithm: "ES256", KeyID: es.KeyID}), store, ErrAlgorithm, "HMAC"},
		{"crit-header", forge(t, card, map[string]any{"alg": "ES256", "kid": es.KeyID, "crit": []string{"exp"}, "exp": 1}, func(string) []byte { return []byte("sig") },
			Signature{Algorithm: "ES256", KeyID: es.KeyID}), store, ErrMalformed, "crit"},
		{"member-alg-differs", tamper(func(m map[string]any) { m["signature"].(map[string]any)["algorithm"] = "RS256" }), store, ErrAlgorithm, "differs"},
		{"jwk-alg-mismatch", signed, wrongAlgKey, ErrAlgorithm, "is for alg"},
		{"key-type-confusion", tamper(func(m map[string]any) {
			m["signature"] = map[string]any{"algorithm": "EdDSA", "key_id": ed.KeyID, "value": edSig["value"]}
		}), confused, ErrAlgorithm, "algorithm confusion"},
		{"kid-differs", tamper(func(m map[string]any) { m["signature"].(map[string]any)["key_id"] = ed.KeyID }), store, ErrMalformed, "kid"},
		{"attached-payload", tamper(func(m map[string]any) {
			s := m["signature"].(map[string]any)
			parts := strings.Split(s["value"].(string), ".")
			s["value"] = parts[0] + ".e30." + parts[2]
		}), store, ErrMalformed, "detached"},
		{"not-jws", tamper(func(m map[string]any) { m["signature"].(map[string]any)["value"] = "abc" }), store, ErrMalformed, "compact JWS"},
		{"bad-member", tamper(func(m map[string]any) { m["signature"] = "xyz" }), store, ErrMalformed, "must be an object"},
		{"missing-kid", tamper(func(m map[string]any) { delete(m["signature"].(map[string]any), "key_id") }), store, ErrMalformed, "key_id"},
		{"truncated-sig", tamper(func(m map[string]any) {
			s := m["signature"].(map[string]any)
			v := s["value"].(string)
			s["value"] = v[:len(v)-8]
		}), store, ErrTampered, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := VerifyCard(ctx, c.card, c.store)
			if err == nil {
				t.Fatal("verified; want refusal")
			}
			if !errors.Is(err, c.kind) {
				t.Fatalf("error %q is not %v", err, c.kind)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %q does not mention %q", err, c.msg)
			}
		})
	}
}

func TestArtifactPinning(t *testing.T) {
	dir := t.TempDir()
	art := filepath.Join(dir, "tool.wasm")
	if err := os.WriteFile(art, []byte("\x00asm\x01\x00\x00\x00good"), 0o644); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(readCard(t), &m)
	m["artifact"] = map[string]any{"path": "tool.wasm"}
	card, _ := json.Marshal(m)
	pinned, ok, err := PinArtifact(card, dir, "adapter.json")
	if err != nil || !ok {
		t.Fatalf("PinArtifact: %v %v", ok, err)
	}
	k := newKey(t, "ES256")
	signed, err := SignCard(pinned, k)
	if err != nil {
		t.Fatal(err)
	}
	v, err := VerifyCard(context.Background(), signed, storeWith(abi.System, k))
	if err != nil {
		t.Fatal(err)
	}
	if v.Artifact == nil || v.Artifact.Path != "tool.wasm" || len(v.Artifact.SHA256) != 64 {
		t.Fatalf("artifact = %+v", v.Artifact)
	}
	if err := v.Artifact.Check(dir); err != nil {
		t.Fatalf("untouched artifact: %v", err)
	}
	if err := os.WriteFile(art, []byte("\x00asm\x01\x00\x00\x00evil"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := v.Artifact.Check(dir); !errors.Is(err, ErrArtifact) || !strings.Contains(err.Error(), "tool.wasm") {
		t.Fatalf("swapped artifact: %v", err)
	}
	_ = os.Remove(art)
	if err := v.Artifact.Check(dir); !errors.Is(err, ErrArtifact) {
		t.Fatalf("missing artifact: %v", err)
	}
	for _, bad := range []string{"../x.wasm", "/etc/passwd", "", "."} {
		if err := ValidateArtifactPath(bad); err == nil {
			t.Errorf("ValidateArtifactPath(%q): want error", bad)
		}
	}
	if err := (&ArtifactPin{Path: "tool.wasm"}).Check(dir); !errors.Is(err, ErrArtifact) {
		t.Fatalf("pin without digest: %v", err)
	}
}

func TestJWKSURL(t *testing.T) {
	k := newKey(t, "EdDSA")
	jwks, err := MarshalJWKS(k.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_, _ = w.Write(jwks)
	}))
	defer srv.Close()
	store, err := LoadKeyConfigs([]KeyConfig{{Trust: "Community", JWKSURL: srv.URL}}, "", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	store.MinRefetch = time.Second // long enough for the looks below on a loaded machine
	signed, err := SignCard(readCard(t), k)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		v, err := VerifyCard(context.Background(), signed, store)
		if err != nil {
			t.Fatal(err)
		}
		if v.Trust != abi.Community {
			t.Fatalf("trust = %v", v.Trust)
		}
	}
	if hits.Load() != 1 {
		t.Fatalf("JWKS fetched %d times, want 1 (cached)", hits.Load())
	}
	// Unknown kid: no refetch within MinRefetch, then one, then held back again.
	other := newKey(t, "EdDSA")
	osigned, _ := SignCard(readCard(t), other)
	if _, err := VerifyCard(context.Background(), osigned, store); !errors.Is(err, ErrUnknownKey) || hits.Load() != 1 {
		t.Fatalf("unknown kid within MinRefetch: %v, %d fetches", err, hits.Load())
	}
	time.Sleep(store.MinRefetch + 10*time.Millisecond)
	for range 3 {
		if _, err := VerifyCard(context.Background(), osigned, store); !errors.Is(err, ErrUnknownKey) {
			t.Fatalf("unknown kid: %v", err)
		}
	}
	if hits.Load() != 2 {
		t.Fatalf("JWKS fetched %d times, want 2", hits.Load())
	}
	// A dead URL is reported.
	dead, _ := LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWKSURL: "http://127.0.0.1:1/jwks.json"}}, "", nil)
	if _, err := VerifyCard(context.Background(), signed, dead); !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), "fetching JWKS") {
		t.Fatalf("dead URL: %v", err)
	}
}

func TestKeyConfigs(t *testing.T) {
	dir := t.TempDir()
	k := newKey(t, "RS256")
	jwks, _ := MarshalJWKS(k.PublicJWK())
	if err := os.WriteFile(filepath.Join(dir, "keys.json"), jwks, 0o644); err != nil {
		t.Fatal(err)
	}
	var inline map[string]any
	b, _ := json.Marshal(k.PublicJWK())
	_ = json.Unmarshal(b, &inline)

	good := [][]KeyConfig{
		{{Trust: "System", JWKS: "keys.json"}},
		{{Trust: "verified", JWK: inline}},
		{{Trust: "Community", JWKS: "keys.json", KeyID: k.KeyID, Expires: "2999-01-01T00:00:00Z"}},
	}
	for i, cfg := range good {
		s, err := LoadKeyConfigs(cfg, dir, nil)
		if err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		keys, _ := s.Lookup(context.Background(), k.KeyID)
		if len(keys) != 1 {
			t.Fatalf("config %d: %d keys", i, len(keys))
		}
	}
	secret := map[string]any{"kty": "oct", "k": base64.RawURLEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))}
	bad := []struct {
		cfg  KeyConfig
		want string
	}{
		{KeyConfig{Trust: "Untrusted", JWKS: "keys.json"}, "an Untrusted key"},
		{KeyConfig{Trust: "Root", JWKS: "keys.json"}, "unknown trust level"},
		{KeyConfig{Trust: "System"}, "exactly one"},
		{KeyConfig{Trust: "System", JWKS: "keys.json", JWKSURL: "http://x"}, "exactly one"},
		{KeyConfig{Trust: "System", JWKS: "missing.json"}, "no such file"},
		{KeyConfig{Trust: "System", JWKS: "keys.json", KeyID: "nope"}, "no key with kid"},
		{KeyConfig{Trust: "System", JWK: secret}, "symmetric"},
		{KeyConfig{Trust: "System", JWKS: "keys.json", Expires: "tomorrow"}, "expires"},
	}
	for _, c := range bad {
		if _, err := LoadKeyConfigs([]KeyConfig{c.cfg}, dir, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
}

func TestJWKExpiryMembers(t *testing.T) {
	k := newKey(t, "ES256")
	b, _ := json.Marshal(k.PublicJWK())
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["exp"] = time.Now().Add(-time.Minute).Unix()
	b, _ = json.Marshal(map[string]any{"keys": []any{m}})
	keys, err := ParseJWKS(b, abi.Verified, "mem")
	if err != nil {
		t.Fatal(err)
	}
	s := NewKeyStore(nil)
	s.Add(keys...)
	signed, _ := SignCard(readCard(t), k)
	if _, err := VerifyCard(context.Background(), signed, s); !errors.Is(err, ErrKeyExpired) {
		t.Fatalf("exp in the past: %v", err)
	}
}

func TestPrivateKeyPEMRoundTrip(t *testing.T) {
	for _, alg := range []string{"ES256", "RS256", "EdDSA"} {
		k := newKey(t, alg)
		pemBytes, err := MarshalPrivateKeyPEM(k.Key)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParsePrivateKeyPEM(pemBytes, "")
		if err != nil {
			t.Fatal(err)
		}
		if back.KeyID != k.KeyID || back.Algorithm != k.Algorithm {
			t.Fatalf("%s: got %s/%s want %s/%s", alg, back.KeyID, back.Algorithm, k.KeyID, k.Algorithm)
		}
	}
	if _, err := ParsePrivateKeyPEM([]byte("junk"), ""); err == nil {
		t.Fatal("want error for junk PEM")
	}
	if _, err := GenerateKey("HS256", ""); err == nil {
		t.Fatal("want error for HS256 keygen")
	}
}

func FuzzVerifyCard(f *testing.F) {
	k, err := GenerateKey("EdDSA", "fuzz")
	if err != nil {
		f.Fatal(err)
	}
	card, _ := os.ReadFile("testdata/card.json")
	signed, _ := SignCard(card, k)
	f.Add(signed)
	f.Add(card)
	f.Add(signEd25519Alg(f, card, k, "Ed25519", false))
	f.Add([]byte(`{"signature":{"algorithm":"none","key_id":"fuzz","value":"eyJhbGciOiJub25lIn0.."}}`))
	store := storeWith(abi.Verified, k)
	want, _, err := SigningPayload(signed)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := VerifyCard(context.Background(), data, store)
		if err != nil {
			return
		}
		if v.KeyID != "fuzz" {
			t.Fatalf("verified with key %q", v.KeyID)
		}
		// A card that verifies says what was signed.
		if got, _, err := SigningPayload(data); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("verified %q, whose signed content %q is not the card's %q (%v)", data, got, want, err)
		}
	})
}

func BenchmarkVerifyCard(b *testing.B) {
	for _, alg := range []string{"ES256", "RS256", "EdDSA"} {
		b.Run(alg, func(b *testing.B) {
			k := newKey(b, alg)
			signed, err := SignCard(readCard(b), k)
			if err != nil {
				b.Fatal(err)
			}
			store := storeWith(abi.Verified, k)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := VerifyCard(ctx, signed, store); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPinFolderFiles: signing pins every regular file of the card's folder
// (not the card, hidden entries or __pycache__), a change to any of them
// fails Check, and malformed artifact.files are refused.
func TestPinFolderFiles(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"tool.js": "main", "lib.js": "lib", "sub/deep.js": "deep", ".hidden": "h", "__pycache__/x.py": "c", "adapter.json": "{}", "draft.json": `{"adapter": {"id": "org.x", "protocol_version": "0.3.0"}}`, "data.bin": "x",
		"signed.json": "", "settings.json": `{"adapter": {"port": 1}}`,
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var m map[string]any
	_ = json.Unmarshal(readCard(t), &m)
	m["artifact"] = map[string]any{"path": "tool.js"}
	card, _ := json.Marshal(m)
	pinned, _, err := PinArtifact(card, dir, "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	pin, err := ArtifactOf(pinned)
	if err != nil {
		t.Fatal(err)
	}
	// Not the card, a draft card, an empty file being written (the output
	// of `sign … > signed.json`), data or hidden files; a data file that
	// merely has an "adapter" member is pinned.
	if got := pin.FileNames(); !reflect.DeepEqual(got, []string{"lib.js", "settings.json", "sub/deep.js"}) {
		t.Fatalf("pinned files %v", got)
	}
	// Signing through a symbolic link to the folder pins the same files.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	viaLink, _, err := PinArtifact(card, link, "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	if lp, _ := ArtifactOf(viaLink); !reflect.DeepEqual(lp.FileNames(), pin.FileNames()) {
		t.Fatalf("pinned through a link: %v", lp.FileNames())
	}
	if err := pin.Check(dir); err != nil {
		t.Fatal(err)
	}
	if extra, err := pin.Unpinned(dir, "adapter.json"); err != nil || len(extra) != 0 {
		t.Fatalf("unpinned %v %v", extra, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "deep.js"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := pin.Check(dir); !errors.Is(err, ErrArtifact) || !strings.Contains(err.Error(), "sub/deep.js") {
		t.Fatalf("Check after an edit: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "planted.js"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if extra, _ := pin.Unpinned(dir, "adapter.json"); !reflect.DeepEqual(extra, []string{"planted.js"}) {
		t.Fatalf("unpinned %v", extra)
	}
	if err := os.WriteFile(filepath.Join(dir, `a\b.txt`), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := PinArtifact(card, dir, "adapter.json"); err == nil || !strings.Contains(err.Error(), "backslash") {
		t.Fatalf("pinning a file named with a backslash: %v", err)
	}
	_ = os.Remove(filepath.Join(dir, `a\b.txt`))
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link.js")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := PinArtifact(card, dir, "adapter.json"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("pinning a folder with a symlink: %v", err)
	}
	sum := strings.Repeat("a", 64)
	for _, files := range []map[string]any{
		{"../x.js": sum}, {"/etc/x": sum}, {"tool.js": sum}, {"a//b.js": sum}, {"lib.js": "nothex"},
	} {
		m["artifact"] = map[string]any{"path": "tool.js", "sha256": sum, "files": files}
		bad, _ := json.Marshal(m)
		if _, err := ArtifactOf(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("artifact.files %v: %v, want ErrMalformed", files, err)
		}
	}
}
