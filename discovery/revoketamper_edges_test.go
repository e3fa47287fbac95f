package discovery

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRevokedKeyUnloadsTamperedUnit: a signed provider is served;
// an account that can write the plugin folder (but holds no key) changes
// its artifact, which is refused as not the code signed, and the version
// loaded keeps serving, as documented. Then the vendor's key is revoked
// (removed from its JWKS). The serving version's signer is gone, so it
// must be unloaded as it is when the folder is untouched; it kept serving
// for ever: the folder's digest differed from what was loaded, so only
// the new bytes were checked, their refusal left the old version in
// place, and the signature it was loaded under was never checked again.
func TestRevokedKeyUnloadsTamperedUnit(t *testing.T) {
	for _, tamper := range []string{"artifact", "card"} {
		t.Run(tamper, func(t *testing.T) {
			k := newTestKey(t, "Verified")
			hubURL, revoked := revocableJWKS(t, k)
			card := `{"adapter": {"id": "org.test.revoked", "name": "R", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
			env := newEnv(t, "watch: false\nkeys: [{trust: Verified, jwks_url: "+hubURL+"}]\n", func(dir string) {
				signedFolder(t, k, filepath.Join(dir, "vendor"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"revoked-echo"}})
			})
			unit := filepath.Join(env.dir, "vendor")
			if env.h.Registry().Provider("org.test.revoked") == nil {
				t.Fatalf("not loaded: %v", env.d.Errors())
			}
			switch tamper {
			case "artifact":
				writeFake(t, filepath.Join(unit, "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "6.6.6", Tools: []string{"revoked-echo"}})
			case "card": // the signed card with its name changed: the signature no longer matches
				b, err := os.ReadFile(filepath.Join(unit, "adapter.json"))
				if err != nil {
					t.Fatal(err)
				}
				b = []byte(strings.Replace(string(b), `"name": "R"`, `"name": "S"`, 1))
				if err := os.WriteFile(filepath.Join(unit, "adapter.json"), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
				t.Fatal(err)
			}
			if env.h.Registry().Provider("org.test.revoked") == nil {
				t.Fatalf("the version loaded should keep serving while the folder's new bytes are refused")
			}
			if e := env.d.Errors()[unit]; e == "" {
				t.Fatalf("the tampered folder was not refused")
			}
			revoked(true)
			env.d.Keys().TTL, env.d.Keys().MinRefetch = 0, 0
			if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
				t.Fatal(err)
			}
			if p := env.h.Registry().Provider("org.test.revoked"); p != nil {
				t.Fatalf("still served (%s, %s) after its signing key was revoked; errors %v", p.Trust, p.Source, env.d.Errors())
			}
			if e := env.d.Errors()[unit]; !strings.Contains(e, "test-key") {
				t.Fatalf("error %q should name the key id", e)
			}
		})
	}
}

// TestTamperedUnitLowerTrustUnloaded: as above, but the key leaves
// the Verified set and stays in a Community one. An untouched folder is
// loaded again at Community (TestUnchangedCardRecheckedAtLowerTrust); a
// folder whose files changed since cannot be (its bytes are not those
// signed), so the version serving goes rather than keep Verified grants
// its signer no longer has.
func TestTamperedUnitLowerTrustUnloaded(t *testing.T) {
	k := newTestKey(t, "Verified")
	verifiedURL, lowered := revocableJWKS(t, k)
	communityURL, _ := revocableJWKS(t, k)
	card := `{"adapter": {"id": "org.test.lowered", "name": "L", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	env := newEnv(t, "watch: false\nkeys: [{trust: Verified, jwks_url: "+verifiedURL+"}, {trust: Community, jwks_url: "+communityURL+"}]\n", func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "vendor"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"lowered-echo"}})
	})
	unit := filepath.Join(env.dir, "vendor")
	writeFake(t, filepath.Join(unit, "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "6.6.6", Tools: []string{"lowered-echo"}})
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if p := env.h.Registry().Provider("org.test.lowered"); p == nil || p.Trust.String() != "Verified" {
		t.Fatalf("the version loaded should keep serving at Verified while the new bytes are refused: %+v", p)
	}
	lowered(true)
	env.d.Keys().TTL, env.d.Keys().MinRefetch = 0, 0
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if p := env.h.Registry().Provider("org.test.lowered"); p != nil {
		t.Fatalf("still served at %s after its key left the Verified set; errors %v", p.Trust, env.d.Errors())
	}
	if e := env.d.Errors()[unit]; !strings.Contains(e, "only at Community") {
		t.Fatalf("error %q should say the key now vouches at Community", e)
	}
}
