package trust

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestPEMGivenAsJWKSSaysPEM: a PEM file given where a JWKS is read
// (verify --jwks pub.pem, a discovery.keys jwks entry naming keygen's
// private.pem instead of its jwks.json) was refused as "not a JWKS:
// invalid character '-' in numeric literal", a JSON parser's complaint
// about the first dash. The error says the file is PEM, what kind, and
// what to give instead.
func TestPEMGivenAsJWKSSaysPEM(t *testing.T) {
	k, err := GenerateKey("ES256", "a")
	if err != nil {
		t.Fatal(err)
	}
	priv, err := MarshalPrivateKeyPEM(k.Key)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		doc  string
		want []string
	}{
		{string(priv), []string{`PEM ("PRIVATE KEY")`, "jwks.json"}},
		{"-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n", []string{`PEM ("PUBLIC KEY")`, `{"keys": [`}},
	} {
		_, err := ParseJWKS([]byte(c.doc), abi.Verified, "keys/vendor.pem")
		if err == nil {
			t.Errorf("%.30q: accepted", c.doc)
			continue
		}
		msg := err.Error()
		for _, w := range append(c.want, "keys/vendor.pem", "not a JWKS") {
			if !strings.Contains(msg, w) {
				t.Errorf("err = %q, want it to say %s", msg, w)
			}
		}
		if strings.Contains(msg, "numeric literal") {
			t.Errorf("err = %q still a JSON parser's complaint", msg)
		}
	}
}
