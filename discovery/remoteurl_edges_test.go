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

// TestRemoteURLWithQueryRefused: a discovery.remotes url with a query or a
// fragment (http://h:7702/?v=1, http://h:7702#x) was taken, and the card's
// path appended to it: the host fetched http://h:7702/ with the query
// "v=1/.well-known/aios-adapter.json" (a fragment is not even sent), so
// the card was another page, and calls went to ".../?v=1/rpc". It is
// refused now, naming the line and saying the url is the host's base URL.
func TestRemoteURLWithQueryRefused(t *testing.T) {
	for _, doc := range []string{
		"discovery:\n  remotes:\n    - url: http://h:7702/?v=1\n",
		"discovery:\n  remotes:\n    - url: http://h:7702#x\n",
		"discovery:\n  remotes:\n    - url: http://h:7702/?\n",
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
		if msg := err.Error(); !strings.HasPrefix(msg, "c.yaml:3: discovery.remotes[0].url: ") || !strings.Contains(msg, "base URL") {
			t.Errorf("%q: %v", doc, msg)
		}
	}
	cfg, err := config.Parse([]byte("discovery:\n  remotes:\n    - url: http://h:7702/aios/\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(cfg); err != nil {
		t.Errorf("a url with a path: %v", err)
	}
}
