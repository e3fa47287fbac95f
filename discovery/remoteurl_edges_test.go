package discovery

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestRemoteURLWithPasswordRefused: a discovery.remotes url holding
// user:password (http://u:secret@h:7702) was taken: the host sent the
// password as HTTP Basic auth with every request and printed the URL,
// password and all, in its errors ("fetching http://u:secret@h:7702/…:
// HTTP 404", "remote adapter X at http://u:secret@h:7702/rpc: …"), which
// the log, the calling agent and the audit log see. It is refused now,
// naming the line and the URL with its password hidden, and saying to give
// the token instead.
func TestRemoteURLWithPasswordRefused(t *testing.T) {
	for _, doc := range []string{
		"discovery:\n  remotes:\n    - url: http://u:secret@h:7702\n",
		"discovery:\n  remotes:\n    - url: http://secret@h:7702\n",
	} {
		cfg, err := config.Parse([]byte(doc), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		_, err = LoadConfig(cfg)
		if err == nil {
			t.Errorf("%q: taken", doc)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "c.yaml:3: discovery.remotes[0].url: ") || strings.Contains(msg, "secret") || !strings.Contains(msg, "token") {
			t.Errorf("%q: %v", doc, msg)
		}
	}
}
