package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/host"
)

// newIsolationServer serves the native test provider over HTTP with the
// given agents and server.tokens (YAML lines of the agents map and of the
// tokens list).
func newIsolationServer(t *testing.T, agents, tokens string) *testServer {
	t.Helper()
	dir := t.TempDir()
	doc := "plugins: []\ndata: " + filepath.Join(dir, "data") + "\naudit: {disabled: true}\n" +
		"agents:\n  cli: {grants: ['CallTool(*)']}\n" + agents +
		"server:\n  tokens:\n" + tokens
	cfg, err := config.Parse([]byte(doc), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.AddProvider(context.Background(), nativeProvider("org.test.native", ""), host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	d, err := discovery.New(discovery.Options{Host: h, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Host: h, Discovery: d, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.ServeHTTPListener(ln)
	t.Cleanup(func() {
		_ = s.Close()
		_ = d.Close()
		_ = h.Close()
		_ = os.RemoveAll(dir)
	})
	return &testServer{h: h, s: s, d: d, dir: dir, url: "http://" + ln.Addr().String()}
}

// GET /events is aios/registry.subscribe over HTTP: an agent whose
// agents.NAME.methods leaves the method out, refused it over /rpc, could
// still stream every registry change from /events.
func TestProbeEventsHonourMethods(t *testing.T) {
	ts := newIsolationServer(t,
		"  lim: {grants: ['CallTool(echo)'], methods: ['tools/call']}\n  sub: {grants: ['CallTool(echo)'], methods: ['aios/registry.subscribe']}\n",
		"    - {agent: lim, token: lim-token}\n    - {agent: sub, token: sub-token}\n")
	get := func(tok string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, ts.url+"/events", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		resp, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		buf := make([]byte, 512)
		n, _ := io.ReadAtLeast(resp.Body, buf, 1)
		return resp.StatusCode, string(buf[:n])
	}
	status, body := get("lim-token")
	if status != http.StatusForbidden || !strings.Contains(body, "CapabilityDenied") || !strings.Contains(body, "agents.lim.methods") {
		t.Errorf("GET /events as lim (methods: [tools/call]): %d %q, want 403 CapabilityDenied naming agents.lim.methods", status, body)
	}
	if status, body := get("sub-token"); status != http.StatusOK || !strings.HasPrefix(body, ": subscribed") {
		t.Errorf("GET /events as sub (methods: [aios/registry.subscribe]): %d %q, want the stream", status, body)
	}
}
