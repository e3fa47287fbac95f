package discovery

import (
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestPlainHTTPJWKSURLWarned: a discovery.keys jwks_url over plain http to
// another machine was taken without a word, though whoever is on the
// network path can answer it with a key of their own and have any card
// they sign served at the entry's level (Verified, System) — the same risk
// mcp.http.jwks_url is warned of. It is taken (a key server on a
// container's network is a real set-up) and warned of at start, once per
// entry, naming the URL; https and loopback URLs are not.
func TestPlainHTTPJWKSURLWarned(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	newEnvWith(t, "keys: [{trust: Verified, jwks_url: \"http://keys.example:8080/jwks.json\"}, {trust: Community, jwks_url: \"http://127.0.0.1:1/jwks.json\"}, {trust: Community, jwks_url: \"http://[::1]:1/jwks.json\"}, {trust: System, jwks_url: \"https://hub.example/jwks.json\"}]\n", nil, withLogs(logs))
	if n := logLines(logs, "level=WARN", "plain http", "http://keys.example:8080/jwks.json", "trust=Verified"); n != 1 {
		t.Errorf("plain http jwks_url to another machine warned %d times, want once:\n%s", n, logs.String())
	}
	if n := logLines(logs, "level=WARN", "plain http"); n != 1 {
		t.Errorf("%d warnings of plain http, want 1 (loopback and https are not warned of):\n%s", n, logs.String())
	}
}
