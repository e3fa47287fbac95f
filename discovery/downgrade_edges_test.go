package discovery

import (
	"path/filepath"
	"testing"
)

// TestOlderSignedCopyDoesNotShadowNewer: an account that can write
// to the plugin folder, without the signing key, drops beside a vendor's
// signed 2.0.0 a validly signed 1.0.0 of the same adapter (an old release
// with a known flaw) in a folder that sorts first. Both are signed by the
// same key, so they tie in trust and kind; the lexically first path served
// the id, so adding a folder downgraded the provider. Among equals the
// higher adapter.version serves, whatever the folders' names, and the
// older copy is shadowed.
func TestOlderSignedCopyDoesNotShadowNewer(t *testing.T) {
	k := newTestKey(t, "Verified")
	card := func(v string) string {
		return `{"adapter": {"id": "org.test.vendor", "name": "V", "version": "` + v + `", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	}
	for _, names := range [][2]string{{"vendor", "a-old"}, {"a-vendor", "old"}} {
		t.Run(names[1], func(t *testing.T) {
			env := newEnv(t, k.cfg, func(dir string) {
				signedFolder(t, k, filepath.Join(dir, names[0]), card("2.0.0"), fakeSpec{ID: "org.test.inner", Version: "2.0.0", Tools: []string{"vendor-tool"}})
				signedFolder(t, k, filepath.Join(dir, names[1]), card("1.0.0"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"vendor-tool"}})
			})
			p := env.h.Registry().Provider("org.test.vendor")
			if p == nil {
				t.Fatalf("not loaded: %v", env.d.Errors())
			}
			if p.Info.Version != "2.0.0" || p.Source != filepath.Join(env.dir, names[0]) {
				t.Fatalf("served %s from %s, want 2.0.0 from %s", p.Info.Version, p.Source, names[0])
			}
			a, ok := env.d.Adapter("org.test.vendor")
			if !ok || !a.Active || a.Card == nil || a.Card.Adapter.Version != "2.0.0" {
				t.Fatalf("adapter %+v", a)
			}
		})
	}
}
