package trust

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestJWSHeaderMemberOfWrongTypeNamed: a protected header whose member
// has the wrong JSON type ("alg": 5, "crit": "b64") was refused as "JWS
// protected header is not a JSON object: … Go struct field jwsHeader.alg
// of type string": it is an object, and the member went unnamed but in
// Go's words (p187's leftover). Now the member, its type and the one it
// must have are named.
func TestJWSHeaderMemberOfWrongTypeNamed(t *testing.T) {
	for _, c := range []struct{ header, want string }{
		{`{"alg":5}`, `JWS protected header member "alg" is a JSON number; it must be a string`},
		{`{"alg":"EdDSA","crit":"b64"}`, `JWS protected header member "crit" is a JSON string; it must be an array of strings`},
		{`{"alg":"EdDSA","b64":"false"}`, `JWS protected header member "b64" is a JSON string; it must be a boolean`},
		{`{"alg":"EdDSA","kid":["k"]}`, `JWS protected header member "kid" is a JSON array; it must be a string`},
		{`[1]`, `JWS protected header is not a JSON object`},
	} {
		_, err := verifyHeaderOnly(t, c.header)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "Go struct") {
			t.Errorf("header %s: %v; want ErrMalformed saying %q", c.header, err, c.want)
		}
	}
}

// verifyHeaderOnly verifies a card signed with a JWS whose protected
// header is header (and a signature that cannot match), its key known.
func verifyHeaderOnly(t *testing.T, header string) (*Verified, error) {
	t.Helper()
	k := newKey(t, "ES256")
	h := base64.RawURLEncoding.EncodeToString([]byte(header))
	card := `{"adapter":{"id":"org.example.a","name":"A","version":"1.0.0","protocol_version":"0.3.0"},"signature":{"algorithm":"ES256","key_id":"` + k.KeyID + `","value":"` + h + `..` + base64.RawURLEncoding.EncodeToString(make([]byte, 64)) + `"}}`
	return VerifyCard(context.Background(), []byte(card), storeWith(abi.Verified, k))
}
