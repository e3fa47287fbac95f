package discovery

import (
	"strings"
	"testing"
)

// TestHealthURLNeedsHost: endpoints.health and endpoints.metrics are a
// path or an http(s) URL. A URL without a host (https:///health, a
// slash too many; http:health) passed the card check (aios-host verify
// and sign said the card was fine), and loading it said only `endpoint
// https:///health: host "" is empty`, naming no field; a metrics URL so
// was kept as it was. It is refused as the card is read now, naming the
// field, as an endpoints.http without a host is.
func TestHealthURLNeedsHost(t *testing.T) {
	card := func(member, v string) []byte {
		return []byte(`{"adapter": {"id": "org.example.a", "name": "A", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "endpoints": {"rpc": "https://a.example.com/rpc", "` + member + `": "` + v + `"}}`)
	}
	for _, member := range []string{"health", "metrics"} {
		for _, ok := range []string{"/" + member, "https://a.example.com/" + member, "http://127.0.0.1:9000/" + member} {
			if _, err := ParseCard(card(member, ok), "plugins/a/adapter.json"); err != nil {
				t.Errorf("%s %s: %v", member, ok, err)
			}
		}
		for _, bad := range []string{"https:///" + member, "http:" + member, "http:/" + member} {
			_, err := ParseCard(card(member, bad), "plugins/a/adapter.json")
			if err == nil || !strings.Contains(err.Error(), "plugins/a/adapter.json") || !strings.Contains(err.Error(), "endpoints."+member) ||
				!strings.Contains(err.Error(), "host") {
				t.Errorf("%s %s: err = %v, want a refusal naming the card, endpoints.%s and the missing host", member, bad, err, member)
			}
		}
	}
}
