package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/trust"
)

// Two hosts on 127.0.0.1, each importing the other's exported tools from
// its signed /.well-known/aios-adapter.json and calling them over JSON-RPC;
// a tampered copy of a card is refused.
func TestFederation(t *testing.T) {
	lnA, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lnB, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	urlA, urlB := "http://"+lnA.Addr().String(), "http://"+lnB.Addr().String()

	// A proxy serving host A's card with one byte changed.
	tampered := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Get(urlA + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(strings.Replace(string(b), "a-echo", "a-evil", 1)))
	}))
	defer tampered.Close()

	dirA, dirB := t.TempDir(), t.TempDir()
	keyA, _ := trust.GenerateKey("ES256", "host-a")
	keyB, _ := trust.GenerateKey("EdDSA", "host-b")
	for _, kd := range []struct {
		dir string
		k   trust.SigningKey
	}{{dirA, keyA}, {dirB, keyB}} {
		pemBytes, _ := trust.MarshalPrivateKeyPEM(kd.k.Key)
		if err := os.WriteFile(filepath.Join(kd.dir, "host.pem"), pemBytes, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	section := func(self, peer, kid string, extraRemote string) string {
		return "  signing_key: host.pem\n  signing_kid: " + kid + "\n  id: org.aios.host." + self + "\n" +
			"discovery:\n  dirs: []\n  desktop_dirs: []\n" +
			"  keys: [{trust: Community, jwks_url: " + peer + "/.well-known/jwks.json}]\n" +
			"  remotes:\n    - {url: " + peer + ", token: " + testToken + "}\n" + extraRemote
	}
	// Host A exports a-echo; host B exports b-echo. Each host's "peer"
	// agent may call only its own prefix (capability check on the serving side).
	a := buildServer(t, dirA, section("a", urlB, "host-a", ""), lnA, "org.test.a", "a-", "")
	b := buildServer(t, dirB, section("b", urlA, "host-b", "    - {url: "+tampered.URL+", token: "+testToken+"}\n"), lnB, "org.test.b", "b-", "")
	a.startDiscovery(t)
	b.startDiscovery(t)
	// Whoever started first missed the other's card: refresh both.
	ctx := context.Background()
	if _, err := a.d.Refresh(ctx, "remote"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.d.Refresh(ctx, "remote"); err != nil {
		t.Fatal(err)
	}

	// A calls B's tool through its own pipeline → remote provider → B's /rpc.
	v, err := a.h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: "b-echo", Params: map[string]any{"value": "from A"}})
	if err != nil {
		t.Fatalf("A → b-echo: %v (A's discovery errors: %v)", err, a.d.Errors())
	}
	if v.(map[string]any)["value"] != "from A" {
		t.Fatalf("A → b-echo = %v", v)
	}
	v, err = b.h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: "a-echo", Params: map[string]any{"value": 42}})
	if err != nil || v.(map[string]any)["value"] != int64(42) {
		t.Fatalf("B → a-echo = %v, %v (B's discovery errors: %v)", v, err, b.d.Errors())
	}
	rec := a.h.Registry().Provider("org.aios.host.b")
	if rec == nil || rec.Info.Runtime != abi.RuntimeRemote || rec.Trust != abi.Community {
		t.Fatalf("remote provider record %+v", rec)
	}
	// Remote errors keep their code across the hop.
	_, err = a.h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: "b-echo", Params: map[string]any{}})
	if abi.CodeOf(err) != abi.InvalidParams {
		t.Fatalf("b-echo without value: %v", err)
	}
	// Only exported tools travel: b-add is not in B's card.
	if _, err := a.h.Registry().Resolve("b-add", ""); abi.CodeOf(err) != abi.NotFound {
		t.Fatalf("b-add should not be imported: %v", err)
	}
	// The tampered card was refused, with the reason.
	var found bool
	for k, e := range b.d.Errors() {
		if strings.Contains(k, tampered.URL) && strings.Contains(e, "does not verify") {
			found = true
		}
	}
	if !found {
		t.Fatalf("tampered card not refused: %v", b.d.Errors())
	}
	if _, err := b.h.Registry().Resolve("a-evil", ""); err == nil {
		t.Fatal("a tool from the tampered card was registered")
	}
}

// TestInfoWarnsOfAuthentication: registry.info's status carries the
// warning discovery logs for a card requiring authentication the host
// cannot supply (it was only in the log).
func TestInfoWarnsOfAuthentication(t *testing.T) {
	dir, cards := t.TempDir(), t.TempDir()
	card := `{"adapter": {"id": "org.test.oauth", "name": "R", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "oauth-echo", "name": "Echo", "permission_level": "low"}],
  "endpoints": {"rpc": "unix://` + filepath.Join(dir, "none.sock") + `"},
  "authentication": {"required": true, "schemes": ["oauth2", "api_key"]}}`
	if err := os.WriteFile(filepath.Join(cards, "oauth.adapter.json"), []byte(card), 0o644); err != nil {
		t.Fatal(err)
	}
	// A card's local socket needs Network(localhost) (discovery's TestUnixEndpointNeedsLocalNetwork).
	ts := buildServer(t, dir, "discovery:\n  dirs: ["+cards+"]\n  desktop_dirs: []\ntrust: {caps: {Untrusted: [\"CallTool(*)\", \"Network(localhost)\"]}}\n", nil, "org.test.native", "", "")
	ts.startDiscovery(t)
	c := dial(t, ts)
	var info struct{ Status InfoStatus }
	if err := c.Call(context.Background(), "aios/registry.info", map[string]any{"adapter_id": "org.test.oauth"}, &info); err != nil {
		t.Fatalf("%v (discovery errors: %v)", err, ts.d.Errors())
	}
	if len(info.Status.Warnings) != 1 || !strings.Contains(info.Status.Warnings[0], "requires authentication (oauth2, api_key) the host cannot supply") {
		t.Fatalf("warnings %q", info.Status.Warnings)
	}
	var native struct{ Status InfoStatus }
	if err := c.Call(context.Background(), "aios/registry.info", map[string]any{"adapter_id": "org.test.native"}, &native); err != nil {
		t.Fatal(err)
	}
	if native.Status.Warnings != nil {
		t.Fatalf("native provider: warnings %q", native.Status.Warnings)
	}
}
