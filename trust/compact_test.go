package trust

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

func TestCompactSignVerify(t *testing.T) {
	for _, alg := range []string{"EdDSA", "ES256", "RS256"} {
		t.Run(alg, func(t *testing.T) {
			key, err := GenerateKey(alg, "")
			if err != nil {
				t.Fatal(err)
			}
			other, _ := GenerateKey(alg, "")
			jwks, err := MarshalJWKS(key.PublicJWK())
			if err != nil {
				t.Fatal(err)
			}
			keys, err := ParseJWKS(jwks, abi.Verified, "test")
			if err != nil {
				t.Fatal(err)
			}
			payload := []byte(`{"seq":3,"hash":"sha256:abc"}`)
			tok, err := SignCompact(payload, "x-test+jws", key)
			if err != nil {
				t.Fatal(err)
			}
			got, kid, err := VerifyCompact(tok, "x-test+jws", keys)
			if err != nil || string(got) != string(payload) || kid != key.KeyID {
				t.Fatalf("VerifyCompact = %s, %q, %v", got, kid, err)
			}
			parts := strings.Split(tok, ".")
			forgedPayload := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"seq":4,"hash":"sha256:abc"}`)) + "." + parts[2]
			otherTok, _ := SignCompact(payload, "x-test+jws", SigningKey{Key: other.Key, KeyID: key.KeyID})
			expired := *keys[0]
			expired.Expires = time.Now().Add(-time.Hour)
			cases := []struct {
				name string
				tok  string
				typ  string
				keys []*Key
				want error
			}{
				{"edited payload", forgedPayload, "x-test+jws", keys, ErrTampered},
				{"another key, same kid", otherTok, "x-test+jws", keys, ErrTampered},
				{"wrong typ", tok, "y+jws", keys, ErrMalformed},
				{"unknown kid", tok, "x-test+jws", nil, ErrUnknownKey},
				{"expired key", tok, "x-test+jws", []*Key{&expired}, ErrKeyExpired},
				{"garbage", "not.a.jws", "x-test+jws", keys, ErrMalformed},
			}
			for _, c := range cases {
				if _, _, err := VerifyCompact(c.tok, c.typ, c.keys); !errors.Is(err, c.want) {
					t.Errorf("%s: %v, want %v", c.name, err, c.want)
				}
			}
		})
	}
}
