package server

import (
	"encoding/json"
	"net"
	"net/url"
	"testing"
)

// A host serving HTTP on the unspecified address (--http 0.0.0.0:7700, as
// one does to be reached from other machines) with no server.public_url
// wrote http://[::]:7700/rpc into its Adapter Card's endpoints: a peer
// importing it called [::], which is its own machine, with the token
// meant for this host. The card names no endpoints then, so peers call the
// URL they fetched it from.
func TestHostCardOnWildcardNamesNoUnspecifiedEndpoint(t *testing.T) {
	ts := newTestServer(t, "", false)
	if _, err := ts.s.ListenHTTP("0.0.0.0:0"); err != nil {
		t.Fatal(err)
	}
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
	for k, v := range card.Endpoints {
		if u, err := url.Parse(v); err == nil && u.Host != "" && net.ParseIP(u.Hostname()).IsUnspecified() {
			t.Fatalf("the card of a host on 0.0.0.0 has endpoints.%s %q, an address no peer reaches this host at", k, v)
		}
	}
}
