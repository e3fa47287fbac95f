package trust

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestKeyListedTwiceTakesItsHighestLevel: one key listed by two
// discovery.keys entries at two levels (a whole set at Community and, by
// kid, the one key of it the user vouches for at Verified; a hub's JWKS
// URL and an inline copy) verified a card at whichever entry was looked
// at first: file and inline entries in config order, then every
// jwks_url. So the same two lines in the other order, or a Community
// file beside a Verified URL, served the vendor's provider at Community.
// A key verifies at the most trusted level of the entries that list it
// and under which it is valid now, whatever their order.
func TestKeyListedTwiceTakesItsHighestLevel(t *testing.T) {
	dir := t.TempDir()
	k := newKey(t, "ES256")
	jwks, err := MarshalJWKS(k.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "all.json"), jwks, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(jwks) }))
	defer srv.Close()
	var inline map[string]any
	b, _ := json.Marshal(k.PublicJWK())
	_ = json.Unmarshal(b, &inline)
	signed, err := SignCard(readCard(t), k)
	if err != nil {
		t.Fatal(err)
	}
	whole := KeyConfig{Trust: "Community", JWKS: "all.json"}
	vouched := KeyConfig{Trust: "Verified", JWKS: "all.json", KeyID: k.KeyID}
	cases := []struct {
		name string
		cfg  []KeyConfig
		want abi.TrustLevel
	}{
		{"set then vouched kid", []KeyConfig{whole, vouched}, abi.Verified},
		{"vouched kid then set", []KeyConfig{vouched, whole}, abi.Verified},
		{"inline Community, URL Verified", []KeyConfig{{Trust: "Community", JWK: inline}, {Trust: "Verified", JWKSURL: srv.URL}}, abi.Verified},
		{"URL System, file Verified", []KeyConfig{{Trust: "System", JWKSURL: srv.URL}, vouched}, abi.System},
		// The higher entry's own bounds still hold: expired there, the
		// key verifies at the level of the entry still valid.
		{"Verified expired", []KeyConfig{whole, {Trust: "Verified", JWKS: "all.json", Expires: "2001-01-01T00:00:00Z"}}, abi.Community},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store, err := LoadKeyConfigs(c.cfg, dir, srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			v, err := VerifyCard(context.Background(), signed, store)
			if err != nil {
				t.Fatal(err)
			}
			if v.Trust != c.want {
				t.Fatalf("verified at %s (key from %s), want %s", v.Trust, v.KeySource, c.want)
			}
		})
	}
}
