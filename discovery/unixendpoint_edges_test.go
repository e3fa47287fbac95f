package discovery

import (
	"strings"
	"testing"
)

// TestUnixEndpointIsAnAbsolutePath: the host dials the socket named by
// what follows "unix://" in endpoints.rpc, as written. A card naming
// unix://run/a.sock was accepted (url.Parse takes "run" for a host and
// /a.sock for the path, which is absolute), and calls dialled run/a.sock,
// relative to the host's working directory; unix:/run/a.sock was accepted
// and then called as an HTTP URL; a query or a %-escape went into the
// socket's name. Each is refused now, naming the card and the field.
func TestUnixEndpointIsAnAbsolutePath(t *testing.T) {
	card := func(rpc string) []byte {
		return []byte(`{"adapter": {"id": "org.example.a", "name": "A", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "endpoints": {"rpc": "` + rpc + `"}}`)
	}
	for _, ok := range []string{"unix:///run/a.sock", "unix:///run/user/1000/aios/chrome.sock"} {
		c, err := ParseCard(card(ok), "plugins/a/adapter.json")
		if err != nil {
			t.Fatalf("%s: %v", ok, err)
		}
		if sock := strings.TrimPrefix(c.Endpoints.RPC, "unix://"); !strings.HasPrefix(sock, "/") {
			t.Fatalf("%s: the socket dialled would be %q", ok, sock)
		}
	}
	for _, bad := range []string{"unix://run/a.sock", "unix://localhost/run/a.sock", "unix:/run/a.sock",
		"unix:///run/a.sock?x=1", "unix:///run/a%20b.sock", "unix:///run/a.sock#f", "unix://"} {
		_, err := ParseCard(card(bad), "plugins/a/adapter.json")
		if err == nil || !strings.Contains(err.Error(), "plugins/a/adapter.json") || !strings.Contains(err.Error(), "endpoints.rpc") ||
			!strings.Contains(err.Error(), "absolute socket path") {
			t.Errorf("%s: err = %v, want a refusal naming the card, endpoints.rpc and the absolute socket path", bad, err)
		}
	}
}
