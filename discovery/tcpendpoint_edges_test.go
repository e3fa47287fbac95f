package discovery

import (
	"strings"
	"testing"
)

// TestTCPEndpointIsHostPort: a tcp endpoints.rpc is dialled as what
// follows "tcp://" (less a trailing "/"). A card naming tcp://h:9000/rpc
// was accepted and every call failed dialling "h:9000/rpc"; tcp://h (no
// port) and tcp://h:0 were accepted by the card check and failed later or
// at each call. Each is refused now as the card is read, naming the card,
// the field and the form wanted.
func TestTCPEndpointIsHostPort(t *testing.T) {
	card := func(rpc string) []byte {
		return []byte(`{"adapter": {"id": "org.example.a", "name": "A", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "endpoints": {"rpc": "` + rpc + `"}}`)
	}
	for _, ok := range []string{"tcp://127.0.0.1:9000", "tcp://localhost:9000/", "tcp://[::1]:65535"} {
		if _, err := ParseCard(card(ok), "plugins/a/adapter.json"); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"tcp://127.0.0.1", "tcp://127.0.0.1:9000/rpc", "tcp://h:0", "tcp://h:70000", "tcp://:9000",
		"tcp://u@h:9000", "tcp://h:9000?x=1", "tcp://h:9000#f", "tcp://h:"} {
		_, err := ParseCard(card(bad), "plugins/a/adapter.json")
		if err == nil || !strings.Contains(err.Error(), "plugins/a/adapter.json") || !strings.Contains(err.Error(), "endpoints.rpc") ||
			!strings.Contains(err.Error(), "tcp://HOST:PORT") {
			t.Errorf("%s: err = %v, want a refusal naming the card, endpoints.rpc and tcp://HOST:PORT", bad, err)
		}
	}
}
