package trust

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestJWKMemberOfWrongTypeNamesIt: a JWK member of the wrong JSON type
// ("kid": 5, "x": 5, a crv or use given as a number, as a YAML config's
// inline jwk writes `kid: 1`) or a set member that is no object was left
// out (or refused) as "json: cannot unmarshal number into Go value of type
// string" or "… of type jose.rawJSONWebKey": go-jose's words, naming a Go
// type and neither the member nor what it should be. The error names the
// member, what it is and what it must be.
func TestJWKMemberOfWrongTypeNamesIt(t *testing.T) {
	k, err := GenerateKey("ES256", "a")
	if err != nil {
		t.Fatal(err)
	}
	set, err := MarshalJWKS(k.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	s := string(set)
	jwk := strings.TrimSpace(s[strings.Index(s, "[")+1 : strings.LastIndex(s, "]")])
	with := func(member, value string) string {
		return strings.Replace(jwk, "{", `{"`+member+`": `+value+`, `, 1)
	}
	// A JWK with its own member removed first, so the replacement is the
	// only one of its name.
	without := func(member string) string {
		var out []string
		for _, line := range strings.Split(jwk, "\n") {
			if !strings.Contains(line, `"`+member+`":`) {
				out = append(out, line)
			}
		}
		j := strings.Join(out, "\n")
		return strings.Replace(j, ",\n}", "\n}", 1)
	}
	for _, c := range []struct{ doc, want string }{
		{strings.Replace(without("kid"), "{", `{"kid": 5, `, 1), `"kid" is a number, not a string`},
		{strings.Replace(without("x"), "{", `{"x": 5, `, 1), `"x" is a number, not a string`},
		{strings.Replace(without("crv"), "{", `{"crv": true, `, 1), `"crv" is a boolean, not a string`},
		{strings.Replace(without("use"), "{", `{"use": ["sig"], `, 1), `"use" is an array, not a string`},
		{with("x5c", `"MIIB"`), `"x5c" is a string, not an array of strings`},
		{with("x5c", `[5]`), `"x5c" is an array holding a number, not an array of strings`},
	} {
		for _, doc := range []string{c.doc, `{"keys": [` + c.doc + `]}`} {
			_, err := ParseJWKS([]byte(doc), abi.Verified, "keys/vendor.json")
			if err == nil {
				t.Errorf("%s: accepted", doc)
				continue
			}
			msg := err.Error()
			if !strings.Contains(msg, "keys/vendor.json") || !strings.Contains(msg, c.want) || strings.Contains(msg, "Go value") {
				t.Errorf("err = %q, want one naming the file and saying %s", msg, c.want)
			}
		}
	}
	_, err = ParseJWKS([]byte(`{"keys": [5, "x"]}`), abi.Verified, "keys/vendor.json")
	if err == nil || strings.Contains(err.Error(), "Go value") || !strings.Contains(err.Error(), "key 0 left out: a JWK must be a JSON object, not a number") ||
		!strings.Contains(err.Error(), "key 1 left out: a JWK must be a JSON object, not a string") {
		t.Errorf("set of non-objects: err = %v", err)
	}
	// The inline jwk of the config says it too.
	_, err = LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWK: map[string]any{"kty": "EC", "crv": "P-256", "kid": 1, "x": "AA", "y": "AA"}}}, "", nil)
	if err == nil || !strings.Contains(err.Error(), `"kid" is a number, not a string`) {
		t.Errorf("inline jwk with kid 1: err = %v", err)
	}
	// null stays as absent (go-jose's reading): a key with "use": null
	// still verifies.
	if keys, err := ParseJWKS([]byte(strings.Replace(without("use"), "{", `{"use": null, `, 1)), abi.Verified, "k.json"); err != nil || len(keys) != 1 {
		t.Errorf(`"use": null: %d keys, %v`, len(keys), err)
	}
}
