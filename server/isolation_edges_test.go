package server

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
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
func TestEventsHonourMethods(t *testing.T) {
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

// A tools/call refused by agents.NAME.methods left no audit record: the
// attempt of an agent the host keeps from calling tools was invisible in
// the log, while a call refused by a front end's other limits (MCP's
// max_calls_per_session) is recorded through Host.Refuse. It is recorded
// now, with the agent and its principal; the answer stays the methods
// refusal (an unknown tool is not told apart from a known one).
func TestMethodsRefusedCallAudited(t *testing.T) {
	ts := newTestServerAgents(t, "  lim: {grants: ['CallTool(*)'], methods: ['tools/list']}\n", "default_agent: lim\naudit: {}\n", false)
	for _, name := range []string{"echo", "no-such-tool"} {
		m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":{"value":1}}}`)
		e, _ := m["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if !strings.Contains(msg, "agents.lim.methods") {
			t.Fatalf("tools/call %s as lim: %v, want the methods refusal", name, m)
		}
	}
	if err := ts.h.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(ts.dir, "data", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var r struct{ Caller, Principal, Tool, Outcome, Error string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Caller+" "+r.Principal+" "+r.Tool+" "+r.Outcome)
		if r.Tool == "echo" && !strings.Contains(r.Error, "agents.lim.methods") {
			t.Errorf("record of the refused call: error %q does not name agents.lim.methods", r.Error)
		}
	}
	want := []string{"lim uid:" + strconv.Itoa(os.Getuid()) + " echo CapabilityDenied", "lim uid:" + strconv.Itoa(os.Getuid()) + " no-such-tool NotFound"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit records %q, want %q", got, want)
	}
}
