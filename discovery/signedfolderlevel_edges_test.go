package discovery

import (
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestSignedCardInTrustedFolderTakesHigherLevel: docs/trust.md said a
// provider's level is its signer's, and only an unsigned one gets its
// folder's (trust.folders). A card signed by a Community key in a folder
// vouched for at Verified is served at Verified, as the same card
// unsigned would be: the higher of the two levels, as the docs now say.
func TestSignedCardInTrustedFolderTakesHigherLevel(t *testing.T) {
	k := newTestKey(t, "Community")
	card := `{"adapter": {"id": "org.test.folderlevel", "name": "F", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	env := newEnvTop(t, func(plugins string) string { return "trust: {folders: {" + plugins + ": Verified}}" }, k.cfg, func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "folderlevel"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"folderlevel-echo"}})
	}, nil)
	p := env.h.Registry().Provider("org.test.folderlevel")
	if p == nil {
		t.Fatalf("not loaded: %v", env.d.Errors())
	}
	if p.Trust != abi.Verified {
		t.Errorf("served at %s, want Verified (its folder's level, above its Community signer's)", p.Trust)
	}
	for _, a := range env.d.Adapters() {
		if a.ID == "org.test.folderlevel" && (!a.Signed || a.Trust != abi.Verified) {
			t.Errorf("adapter %+v: want signed, at Verified", a)
		}
	}
}
