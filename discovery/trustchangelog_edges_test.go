package discovery

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/trust"
)

// TestTrustChangeLogged: a provider served again at another trust level
// (its key left the Verified set and is still in a Community one) was
// logged as "provider reloaded … trust=Community", as any edit of its
// code is: nothing said its level had changed, or from what. The line
// now names the level it was served at before.
func TestTrustChangeLogged(t *testing.T) {
	k := newTestKey(t, "Verified")
	verifiedURL, revoked := revocableJWKS(t, k)
	communityURL, _ := revocableJWKS(t, k)
	card := `{"adapter": {"id": "org.test.lowlog", "name": "L", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	logs := &lockedLog{}
	env := newEnvWith(t, "watch: false\nkeys: [{trust: Verified, jwks_url: "+verifiedURL+"}, {trust: Community, jwks_url: "+communityURL+"}]\n", func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "lowlog"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"lowlog-echo"}})
	}, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(logs, nil))
		o.keyStore = func(s *trust.KeyStore) { s.TTL, s.MinRefetch = 0, 0 } // refetch at once
	})
	if p := env.h.Registry().Provider("org.test.lowlog"); p == nil || p.Trust != abi.Verified {
		t.Fatalf("not served at Verified: %+v %v", p, env.d.Errors())
	}
	revoked(true)
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if p := env.h.Registry().Provider("org.test.lowlog"); p == nil || p.Trust != abi.Community {
		t.Fatalf("not served at Community: %+v %v", p, env.d.Errors())
	}
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "provider reloaded") && strings.Contains(l, "org.test.lowlog") {
			line = l
		}
	}
	if !strings.Contains(line, "trust=Community") || !strings.Contains(line, "previous_trust=Verified") {
		t.Errorf("the reload should say the level changed from Verified to Community; logged:\n%s", logs.String())
	}
}
