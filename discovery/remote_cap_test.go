package discovery

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/trust"
)

// TestUnboundRemoteCardCapped: a remote card signed by a System key that
// names no endpoint is called at the host that served it, which anyone can
// make serve a copy: it is registered at Community, saying why once; the
// same card naming its http(s) endpoints.rpc keeps its signer's trust.
func TestUnboundRemoteCardCapped(t *testing.T) {
	vendor := newTestKey(t, "System")
	for _, c := range []struct {
		name, endpoints string
		want            abi.TrustLevel
	}{
		{"unbound", "", abi.Community},
		{"bound", `, "endpoints": {"rpc": "ENDPOINT"}`, abi.System},
		// Bound by its endpoints.http, as a plugin folder's card is, when
		// it gives no rpc: the calls went to <the URL it was fetched
		// from>/rpc and the card was capped, endpoints.http ignored
		// (found by p161).
		{"bound by http", `, "endpoints": {"http": "BASE/"}`, abi.System},
	} {
		t.Run(c.name, func(t *testing.T) {
			var signed []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write(signed)
			}))
			defer srv.Close()
			card := `{"adapter": {"id": "org.vendor.remote", "name": "R", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "r-echo", "name": "Echo", "permission_level": "low"}]` + strings.NewReplacer("ENDPOINT", srv.URL+"/rpc", "BASE", srv.URL+"/adapters/r").Replace(c.endpoints) + `}`
			var err error
			if signed, err = trust.SignCard([]byte(card), vendor.key); err != nil {
				t.Fatal(err)
			}
			var logs testutil.SyncBuffer
			renv := newEnvWith(t, vendor.cfg+"remotes: [{url: "+srv.URL+"}]\n", nil, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
			p := renv.h.Registry().Provider("org.vendor.remote")
			if p == nil {
				t.Fatalf("not registered: %v", renv.d.Errors())
			}
			if p.Trust != c.want {
				t.Fatalf("trust %s, want %s", p.Trust, c.want)
			}
			if c.name == "bound by http" {
				impl := p.Impl
				for {
					u, ok := impl.(interface{ Unwrap() abi.Provider })
					if !ok {
						break
					}
					impl = u.Unwrap()
				}
				if ep, ok := impl.(interface{ Endpoint() string }); !ok || ep.Endpoint() != srv.URL+"/adapters/r/rpc" {
					t.Fatalf("calls go to %T %v, want %s", impl, impl, srv.URL+"/adapters/r/rpc")
				}
			}
			capped := strings.Count(logs.String(), "trusted less than its signer")
			if (c.want == abi.Community) != (capped == 1) {
				t.Fatalf("%d warnings about the cap: %s", capped, logs.String())
			}
		})
	}
}
