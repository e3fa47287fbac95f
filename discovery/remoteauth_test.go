package discovery

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

func authCard(id, endpoint, auth string) string {
	return `{"adapter": {"id": "` + id + `", "name": "R", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "` + strings.ReplaceAll(id, ".", "-") + `", "name": "Echo", "permission_level": "low"}],
  "endpoints": {"rpc": "` + endpoint + `"}, "authentication": ` + auth + `}`
}

// A remote adapter whose card requires authentication the host cannot
// give it (the host sends only a bearer token from discovery.remotes) is
// loaded with a warning naming the card, its schemes and what the host
// supports.
func TestRemoteAuthUnsupported(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	sock := "unix://" + filepath.Join(t.TempDir(), "a.sock")
	srvCard := authCard("org.test.peer", "ENDPOINT", `{"required": true, "schemes": ["bearer"]}`)
	mtlsCard := authCard("org.test.mtls", "ENDPOINT", `{"required": true, "schemes": ["mtls", "oauth2"]}`)
	serve := func(card string) *httptest.Server {
		var srv *httptest.Server
		srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(strings.ReplaceAll(card, "ENDPOINT", srv.URL+"/rpc")))
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	peer, mtls := serve(srvCard), serve(mtlsCard)
	// The plugin-folder cards' local socket needs Network(localhost) (TestUnixEndpointNeedsLocalNetwork).
	top := func(string) string { return `trust: {caps: {Untrusted: ["CallTool(*)", "Network(localhost)"]}}` }
	env := newEnvTop(t, top, "remotes:\n  - {url: "+peer.URL+", token: secret, allow_unsigned: true}\n  - {url: "+mtls.URL+", token: secret, allow_unsigned: true}\n", func(dir string) {
		writeFile(t, filepath.Join(dir, "oauth.adapter.json"), authCard("org.test.oauth", sock, `{"required": true, "schemes": ["oauth2", "api_key"]}`))
		writeFile(t, filepath.Join(dir, "bearer.adapter.json"), authCard("org.test.bearer", sock, `{"required": true, "schemes": ["bearer"]}`))
		writeFile(t, filepath.Join(dir, "optional.adapter.json"), authCard("org.test.optional", sock, `{"required": false, "schemes": ["oauth2"]}`))
	}, withLogs(logs))
	for _, id := range []string{"org.test.oauth", "org.test.bearer", "org.test.optional", "org.test.peer", "org.test.mtls"} {
		if _, ok := env.d.Adapter(id); !ok {
			t.Fatalf("%s not loaded: %v", id, env.d.Errors())
		}
	}
	warned := func(what string) int {
		return logLines(logs, "level=WARN", "authentication", what)
	}
	if n := warned(filepath.Join(env.dir, "oauth.adapter.json")); n != 1 || logLines(logs, "level=WARN", `schemes="oauth2, api_key"`, "bearer") != 1 {
		t.Errorf("oauth2/api_key card: %d warnings:\n%s", n, logs.String())
	}
	// bearer, but a card in a plugin folder is given no token.
	if n := warned(filepath.Join(env.dir, "bearer.adapter.json")); n != 1 {
		t.Errorf("bearer card without a token: %d warnings:\n%s", n, logs.String())
	}
	if n := warned(mtls.URL); n != 1 {
		t.Errorf("mtls remote: %d warnings:\n%s", n, logs.String())
	}
	if testing.Verbose() {
		t.Log(logs.String())
	}
	for _, quiet := range []string{"optional.adapter.json", peer.URL} {
		if n := warned(quiet); n != 0 {
			t.Errorf("%s: %d warnings, want none:\n%s", quiet, n, logs.String())
		}
	}
	// The same warnings, for aios/registry.info.
	want := map[string]string{"org.test.oauth": "(oauth2, api_key)", "org.test.bearer": "(bearer)", "org.test.mtls": "(mtls, oauth2)"}
	for _, a := range env.d.Adapters() {
		w, ok := want[a.ID]
		if !ok {
			if len(a.Warnings) != 0 {
				t.Errorf("%s: warnings %q, want none", a.ID, a.Warnings)
			}
			continue
		}
		if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "requires authentication "+w+" the host cannot supply") {
			t.Errorf("%s: warnings %q, want one naming %s", a.ID, a.Warnings, w)
		}
	}
}
