package server

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// server.public_url is the base of the card's endpoints: one written with
// a trailing slash (http://h:7700/) gave endpoints.rpc http://h:7700//rpc,
// which the server answers with a redirect a POST does not survive; one
// without a scheme or host (h:7700, /aios) gave endpoints no peer can
// call. The slash is dropped, and a value that is no http(s) URL with a
// host is refused at start, naming the setting.
func TestPublicURLTrailingSlashAndRefused(t *testing.T) {
	ts := newTestServer(t, "  public_url: http://127.0.0.1:7700/\n", false)
	raw, err := ts.s.HostCard()
	if err != nil {
		t.Fatal(err)
	}
	var card struct {
		Endpoints map[string]string `json:"endpoints"`
	}
	if err := json.Unmarshal(raw, &card); err != nil {
		t.Fatal(err)
	}
	if got := card.Endpoints["rpc"]; got != "http://127.0.0.1:7700/rpc" {
		t.Errorf("public_url http://127.0.0.1:7700/: endpoints.rpc %q, want http://127.0.0.1:7700/rpc", got)
	}
	for _, bad := range []string{"127.0.0.1:7700", "/aios", "ftp://h/x", "http://"} {
		doc := "plugins: []\nserver:\n  public_url: '" + bad + "'\n"
		cfg, err := config.Parse([]byte(doc), filepath.Join(t.TempDir(), "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(cfg); err == nil || !strings.Contains(err.Error(), "server.public_url") {
			t.Errorf("public_url %q: %v; want it refused naming server.public_url", bad, err)
		}
	}
}
