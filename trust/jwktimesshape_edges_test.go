package trust

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestJWKTimesAndKeyOpsOfWrongTypeNameThem: a JWK's "exp" or "nbf" that
// is no number (a date written as a string, as a YAML config's inline jwk
// makes of `exp: 2027-01-01T00:00:00Z`) was refused as "exp/nbf must be
// numbers (seconds since the epoch): json: cannot unmarshal string into
// Go struct field .exp of type float64", and a "key_ops" that is no array
// of strings as "… Go struct field .key_ops of type []string": Go's words.
// The error names the member, what it is and what it must be, as for the
// JWK's other members (TestJWKMemberOfWrongTypeNamesIt).
func TestJWKTimesAndKeyOpsOfWrongTypeNameThem(t *testing.T) {
	jwk := map[string]any{"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "kid": "k"}
	for _, c := range []struct {
		member string
		value  any
		want   string
	}{
		{"exp", "2027-01-01T00:00:00Z", `member "exp" is a string, not a number`},
		{"nbf", true, `member "nbf" is a boolean, not a number`},
		{"exp", []any{1}, `member "exp" is an array, not a number`},
		{"key_ops", "verify", `member "key_ops" is a string, not an array of strings`},
		{"key_ops", []any{"verify", 1}, `member "key_ops" is an array holding a number, not an array of strings`},
	} {
		e := map[string]any{}
		for k, v := range jwk {
			e[k] = v
		}
		e[c.member] = c.value
		_, err := LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWK: e}}, "", nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "Go struct") {
			t.Errorf("%s: %v: err = %v, want one saying %s", c.member, c.value, err, c.want)
		}
	}
	// Numbers (and null, read as absent) are taken.
	for _, v := range []any{1.9e9, 2000000000, nil} {
		e := map[string]any{}
		for k, x := range jwk {
			e[k] = x
		}
		e["exp"] = v
		if _, err := ParseJWKS(mustMarshal(t, e), abi.Verified, "k.json"); err != nil {
			t.Errorf("exp %v: %v", v, err)
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
