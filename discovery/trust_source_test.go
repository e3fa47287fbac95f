package discovery

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestTrustBoundToSourceInDiscovery: with providers.<id>.source set, a
// file elsewhere in a watched folder that claims the id does not get the
// configured level: its artifact is served at its folder's level, and a
// card of that id whose endpoint is a local socket (which needs
// Network(localhost), a Verified cap) is refused. The provider from the
// bound folder gets the level. Before, providers.<id>.trust vouched for the
// id, whichever file claimed it.
func TestTrustBoundToSourceInDiscovery(t *testing.T) {
	top := func(plugins string) string {
		return "providers:\n" +
			"  org.test.vendor: {trust: Verified, source: " + filepath.Join(plugins, "vendor") + "}\n" +
			"  org.test.remote: {trust: Verified, source: " + filepath.Join(plugins, "vendor-remote.adapter.json") + "}\n"
	}
	env := newEnvTop(t, top, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "stray.fake"), fakeSpec{ID: "org.test.vendor", Version: "1.0.0", Tools: []string{"v-echo"}})
		writeFile(t, filepath.Join(dir, "stray-remote.adapter.json"), `{
  "adapter": {"id": "org.test.remote", "name": "Remote", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "r-echo", "name": "R echo", "permission_level": "low"}],
  "endpoints": {"rpc": "unix:///nonexistent/aios-test-remote.sock"}}`)
		writeFake(t, filepath.Join(dir, "vendor", "tool.fake"), fakeSpec{ID: "org.test.other", Version: "1.0.0", Tools: []string{"o-echo"}})
	}, nil)
	reg := env.h.Registry()
	p := reg.Provider("org.test.vendor")
	if p == nil {
		t.Fatalf("stray.fake not served: %v", env.d.Errors())
	}
	if p.Trust != abi.Untrusted {
		t.Errorf("stray.fake claiming org.test.vendor served at %s; want Untrusted (the override is bound to vendor/)", p.Trust)
	}
	if reg.Provider("org.test.remote") != nil {
		t.Errorf("stray-remote.adapter.json served with a local socket endpoint at a level bound to another file")
	}
	found := false
	for k, v := range env.d.Errors() {
		if strings.HasSuffix(k, "stray-remote.adapter.json") && strings.Contains(v, "Network(localhost)") {
			found = true
		}
	}
	if !found {
		t.Errorf("no error names stray-remote.adapter.json and Network(localhost): %v", env.d.Errors())
	}
}
