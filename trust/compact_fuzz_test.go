package trust

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// FuzzParseJWKS: a JWKS comes from a file or a URL. Whatever ParseJWKS
// returns is a public key that can verify cards, with a kid, and re-reads
// as itself.
func FuzzParseJWKS(f *testing.F) {
	for _, alg := range []string{"EdDSA", "ES256"} {
		k, err := GenerateKey(alg, "k-"+alg)
		if err != nil {
			f.Fatal(err)
		}
		set, _ := MarshalJWKS(k.PublicJWK())
		f.Add(set)
		b, _ := k.PublicJWK().MarshalJSON()
		f.Add(b)
	}
	for _, s := range []string{
		`{"keys":[]}`, `{"keys":[{"kty":"oct","k":"AAAA"}]}`, `{"keys":null}`, `[]`, `{}`,
		`{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","exp":1e400}`,
		`{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","nbf":"x"}`,
		`{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, err := ParseJWKS(data, abi.Verified, "fuzz")
		if err != nil {
			return
		}
		for _, k := range keys {
			if k.JWK.KeyID == "" || !k.JWK.IsPublic() || !k.JWK.Valid() {
				t.Fatalf("%q gave key %+v", data, k.JWK)
			}
			if _, err := AlgorithmFor(k.JWK.Key); err != nil {
				t.Fatalf("%q gave a key no card can be verified with: %v", data, err)
			}
			b, err := k.JWK.MarshalJSON()
			if err != nil {
				t.Fatalf("%q: key %q does not re-encode: %v", data, k.JWK.KeyID, err)
			}
			again, err := ParseJWKS(b, abi.Verified, "fuzz")
			if err != nil || len(again) != 1 || again[0].JWK.KeyID != k.JWK.KeyID {
				t.Fatalf("%q: key %s re-reads as %v, %v", data, b, again, err)
			}
		}
	})
}

// FuzzVerifyCompact: an audit anchor is a compact JWS read back from disk.
// VerifyCompact accepts nothing but what the key signed.
func FuzzVerifyCompact(f *testing.F) {
	key, err := GenerateKey("EdDSA", "anchor")
	if err != nil {
		f.Fatal(err)
	}
	jwks, _ := MarshalJWKS(key.PublicJWK())
	keys, err := ParseJWKS(jwks, abi.Verified, "fuzz")
	if err != nil {
		f.Fatal(err)
	}
	payload := `{"seq":3,"hash":"sha256:abc"}`
	tok, err := SignCompact([]byte(payload), "x-test+jws", key)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tok)
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add(tok + "." + tok)
	f.Fuzz(func(t *testing.T, s string) {
		got, kid, err := VerifyCompact(s, "x-test+jws", keys)
		if err != nil {
			return
		}
		if string(got) != payload || kid != "anchor" {
			t.Fatalf("accepted %q: payload %q, kid %q", s, got, kid)
		}
	})
}
