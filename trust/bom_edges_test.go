package trust

import (
	"strings"
	"testing"
)

// TestCardWithBOMSaysSo: a card saved by an editor that starts UTF-8 files
// with a byte order mark (EF BB BF) was refused by sign as `jcs: offset
// 0: unexpected character 'ï'`, which does not say what to remove. The
// refusal names the byte order mark now.
func TestCardWithBOMSaysSo(t *testing.T) {
	_, _, err := SigningPayload([]byte("\xef\xbb\xbf" + `{"adapter": {"id": "org.example.a"}}`))
	if err == nil || !strings.Contains(err.Error(), "byte order mark") {
		t.Fatalf("err = %v, want one naming the byte order mark", err)
	}
}

// TestJWKSWithBOMSaysSo: a key set saved with a byte order mark (Windows
// PowerShell's Out-File -Encoding utf8, an editor's "UTF-8 with BOM") was
// refused — by verify --jwks, a discovery.keys jwks file, a jwks_url — as
// `not a JWKS: invalid character 'ï' looking for beginning of value`, as
// a card was (TestCardWithBOMSaysSo). The refusal names the file and the
// byte order mark; the set without it is read.
func TestJWKSWithBOMSaysSo(t *testing.T) {
	set := mustJWKS(t, newKey(t, "EdDSA"))
	_, err := ParseJWKS(append([]byte("\xef\xbb\xbf"), set...), 2, "keys/vendor.json")
	if err == nil || !strings.Contains(err.Error(), "byte order mark") || !strings.Contains(err.Error(), "keys/vendor.json") {
		t.Errorf("err = %v, want one naming the file and the byte order mark", err)
	}
	if _, err := ParseJWKS(set, 2, "keys/vendor.json"); err != nil {
		t.Errorf("the set without it: %v", err)
	}
}
