package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/buildinfo"
	"github.com/aios-host/aios-host/runtimes/native"
	"github.com/aios-host/aios-host/server/jsonrpc"
	"github.com/aios-host/aios-host/trust"
)

func dial(t testing.TB, ts *testServer) *jsonrpc.Client {
	t.Helper()
	c, err := jsonrpc.DialUnix(context.Background(), ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestUnixToolsCall(t *testing.T) {
	ts := newTestServer(t, "", false)
	c := dial(t, ts)
	ctx := context.Background()
	var res jsonrpc.ToolsCallResult
	if err := c.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": "héllo"}}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Value.(map[string]any)["value"] != "héllo" || res.Version != "1.0.0" || res.Content[0].Type != "text" {
		t.Fatalf("result = %+v", res)
	}
	var list struct{ Tools []ToolInfo }
	if err := c.Call(ctx, "tools/list", nil, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 5 || list.Tools[0].Name != "add" || list.Tools[0].InputSchema["type"] != "object" {
		t.Fatalf("tools/list = %+v", list.Tools)
	}
	// Errors keep their abi code in data.code.
	cases := []struct {
		params map[string]any
		code   int
		abi    abi.ErrorCode
	}{
		{map[string]any{"name": "nope"}, -32001, abi.NotFound},
		{map[string]any{"name": "add", "arguments": map[string]any{"a": 1}}, -32602, abi.InvalidParams},
		{map[string]any{"name": "fail"}, -32005, abi.ProviderError},
		{map[string]any{"name": "slow", "timeout_ms": 50}, -32004, abi.Timeout},
		{map[string]any{"name": "echo", "arguments": map[string]any{"value": 1}, "version": "^2"}, -32001, abi.NotFound},
		{map[string]any{"name": "echo", "arguments": map[string]any{"value": 1}, "version": "not a constraint"}, -32602, abi.InvalidParams},
	}
	for _, cs := range cases {
		err := c.Call(ctx, "tools/call", cs.params, nil)
		if code, ac := rpcCode(err); code != cs.code || ac != cs.abi {
			t.Errorf("%v: error %v (code %d, %s), want %d %s", cs.params, err, code, ac, cs.code, cs.abi)
		}
	}
	// The socket peer is the test's own uid → the default agent "cli",
	// which holds ReadSpace(*): secret is allowed.
	if err := c.Call(ctx, "tools/call", map[string]any{"name": "secret"}, nil); err != nil {
		t.Fatalf("secret as cli: %v", err)
	}
}

func TestUIDMapping(t *testing.T) {
	// Map our uid to the reader agent, which lacks ReadSpace(secret).
	ts := newTestServer(t, "  uids: {\""+itoa(uid())+"\": reader}\n", false)
	c := dial(t, ts)
	err := c.Call(context.Background(), "tools/call", map[string]any{"name": "secret"}, nil)
	if code, ac := rpcCode(err); code != -32002 || ac != abi.CapabilityDenied {
		t.Fatalf("secret as reader: %v", err)
	}
}

// rawExchange sends lines on a raw socket connection and reads one reply line per expected answer.
func rawExchange(t *testing.T, ts *testServer, line string) map[string]any {
	t.Helper()
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, line+"\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	reply, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("%s: no reply: %v", line, err)
	}
	var m any
	if err := json.Unmarshal(reply, &m); err != nil {
		t.Fatal(err)
	}
	if arr, ok := m.([]any); ok {
		return map[string]any{"batch": arr}
	}
	return m.(map[string]any)
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	return e["code"].(float64)
}

func TestInvalidJSONRPC(t *testing.T) {
	ts := newTestServer(t, "  max_batch: 3\n", false)
	cases := []struct {
		name string
		line string
		code float64
		id   any
	}{
		{"bad-json", `{"jsonrpc": "2.0", "method": "tools/list", "id": 1`, -32700, nil},
		{"not-object", `42`, -32600, nil},
		{"no-version", `{"method": "tools/list", "id": 1}`, -32600, 1.0},
		{"wrong-version", `{"jsonrpc": "1.0", "method": "tools/list", "id": 1}`, -32600, 1.0},
		{"method-not-string", `{"jsonrpc": "2.0", "method": 7, "id": 1}`, -32600, 1.0},
		{"id-object", `{"jsonrpc": "2.0", "method": "tools/list", "id": {"a": 1}}`, -32600, nil},
		{"params-string", `{"jsonrpc": "2.0", "method": "tools/list", "id": "x", "params": "all"}`, -32600, "x"},
		{"unknown-method", `{"jsonrpc": "2.0", "method": "tools/destroy", "id": 2}`, -32601, 2.0},
		{"positional-params", `{"jsonrpc": "2.0", "method": "tools/call", "id": 3, "params": ["echo"]}`, -32602, 3.0},
		{"wrong-type", `{"jsonrpc": "2.0", "method": "tools/call", "id": 4, "params": {"name": 5}}`, -32602, 4.0},
		{"unknown-param", `{"jsonrpc": "2.0", "method": "tools/call", "id": 5, "params": {"name": "echo", "argz": {}}}`, -32602, 5.0},
		{"missing-name", `{"jsonrpc": "2.0", "method": "tools/call", "id": 6, "params": {}}`, -32602, 6.0},
		{"bad-limit", `{"jsonrpc": "2.0", "method": "aios/registry.search", "id": 7, "params": {"limit": -1}}`, -32602, 7.0},
		{"bad-scope", `{"jsonrpc": "2.0", "method": "aios/registry.refresh", "id": 8, "params": {"scope": "galaxy"}}`, -32602, 8.0},
		{"bad-event", `{"jsonrpc": "2.0", "method": "aios/registry.subscribe", "id": 9, "params": {"events": ["exploded"]}}`, -32602, 9.0},
		{"info-no-id", `{"jsonrpc": "2.0", "method": "aios/registry.info", "id": 10, "params": {}}`, -32602, 10.0},
		{"no-events", `{"jsonrpc": "2.0", "method": "aios/registry.subscribe", "id": 11, "params": {"events": []}}`, -32602, 11.0},
		{"unsubscribe-no-id", `{"jsonrpc": "2.0", "method": "aios/registry.unsubscribe", "id": 12}`, -32602, 12.0},
		{"empty-batch", `[]`, -32600, nil},
		{"batch-too-large", `[{"jsonrpc":"2.0","method":"tools/list","id":1},{"jsonrpc":"2.0","method":"tools/list","id":2},{"jsonrpc":"2.0","method":"tools/list","id":3},{"jsonrpc":"2.0","method":"tools/list","id":4}]`, -32012, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := rawExchange(t, ts, c.line)
			if got := errCode(m); got != c.code {
				t.Fatalf("reply %v: code %v, want %v", m, got, c.code)
			}
			if m["jsonrpc"] != "2.0" || m["id"] != c.id {
				t.Fatalf("reply %v: want jsonrpc 2.0 and id %v", m, c.id)
			}
			e := m["error"].(map[string]any)
			if e["message"] == "" || e["data"].(map[string]any)["code"] == "" {
				t.Fatalf("error object lacks message or data.code: %v", e)
			}
		})
	}
	// A batch mixing good, bad and notification entries.
	m := rawExchange(t, ts, `[{"jsonrpc":"2.0","method":"tools/list","id":"a"}, 1, {"jsonrpc":"2.0","method":"tools/list"}]`)
	batch := m["batch"].([]any)
	if len(batch) != 2 {
		t.Fatalf("batch reply %v: want 2 responses (the notification gets none)", batch)
	}
	ids := map[any]bool{}
	for _, r := range batch {
		ids[r.(map[string]any)["id"]] = true
	}
	if !ids["a"] || !ids[nil] {
		t.Fatalf("batch ids %v", ids)
	}
}

func TestOversizedAndSlowSocket(t *testing.T) {
	ts := newTestServer(t, "  max_body_bytes: 1024\n", false)
	m := rawExchange(t, ts, `{"jsonrpc":"2.0","method":"tools/call","id":1,"params":{"name":"echo","arguments":{"value":"`+strings.Repeat("x", 2000)+`"}}}`)
	if errCode(m) != -32012 {
		t.Fatalf("oversized: %v", m)
	}
	// A slow client: half a message, then silence past read_timeout (300ms).
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, `{"jsonrpc":"2.0",`)
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	reply, _ := bufio.NewReader(conn).ReadBytes('\n')
	if !bytes.Contains(reply, []byte("read_timeout")) {
		t.Fatalf("slow client got %q", reply)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("slow client dropped after %v", d)
	}
	if _, err := bufio.NewReader(conn).ReadByte(); err == nil {
		t.Fatal("connection still open after the timeout")
	}
}

func httpPost(t *testing.T, url, token, ctype, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestHTTPRPC(t *testing.T) {
	ts := newTestServer(t, "  max_body_bytes: 4096\n", true)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":[1,2.5,"x"]}}}`
	cases := []struct {
		name, token, ctype, body string
		status                   int
		contains                 string
	}{
		{"ok", testToken, "application/json", call, 200, `"value":{"value":[1,2.5,"x"]}`},
		{"no-token", "", "application/json", call, 401, "missing bearer token"},
		{"bad-token", "guess", "application/json", call, 401, "invalid bearer token"},
		{"content-type", testToken, "text/plain", call, 415, "Content-Type"},
		{"too-large", testToken, "application/json", `{"x":"` + strings.Repeat("y", 5000) + `"}`, 413, "larger than 4096"},
		{"bad-json", testToken, "application/json", `{`, 200, "-32700"},
		{"notification", testToken, "application/json", `{"jsonrpc":"2.0","method":"tools/list"}`, 204, ""},
		// peer holds CallTool(*) only for tools of its prefix ("" here → all).
		{"batch", testToken, "application/json", `[` + call + `,{"jsonrpc":"2.0","id":2,"method":"nope"}]`, 200, `"code":-32601`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := httpPost(t, ts.url+"/rpc", c.token, c.ctype, c.body)
			if status != c.status || !strings.Contains(string(body), c.contains) {
				t.Fatalf("status %d body %s; want %d containing %q", status, body, c.status, c.contains)
			}
		})
	}
	// GET /rpc is not allowed.
	resp, err := http.Get(ts.url + "/rpc")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET /rpc: %d", resp.StatusCode)
	}
}

func TestHTTPSlowBody(t *testing.T) {
	ts := newTestServer(t, "", true)
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "POST /rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+testToken+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"json")
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	b, _ := io.ReadAll(conn)
	if time.Since(start) > 4*time.Second {
		t.Fatal("slow body was not cut off")
	}
	if len(b) > 0 && !bytes.Contains(b, []byte("408")) && !bytes.Contains(b, []byte("-32004")) && !bytes.Contains(b, []byte("400")) {
		t.Fatalf("slow body reply %q", b)
	}
}

func TestSubscribeOverSocket(t *testing.T) {
	ts := newTestServer(t, "", false)
	c := dial(t, ts)
	got := make(chan ToolsChanged, 8)
	c.OnNotify(func(method string, params json.RawMessage) {
		if method != NotificationToolsChanged {
			return
		}
		var tc ToolsChanged
		_ = json.Unmarshal(params, &tc)
		got <- tc
	})
	var sub struct{ Subscription string }
	if err := c.Call(context.Background(), "aios/registry.subscribe", map[string]any{"events": []string{"added", "removed"}}, &sub); err != nil {
		t.Fatal(err)
	}
	p := native.New(abi.ProviderInfo{ID: "org.test.late", Name: "Late adapter", Version: "1.0.0"})
	p.MustRegister(abi.ToolDef{Name: "late-tool"}, func(context.Context, any, abi.Env) (any, error) { return nil, nil })
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test"}); err != nil {
		t.Fatal(err)
	}
	select {
	case tc := <-got:
		// Seed §5.1: the entries are adapters ({id, name}), with the
		// tools that changed.
		if len(tc.Added) != 1 || tc.Added[0].ID != "org.test.late" || tc.Added[0].Name != "Late adapter" || tc.Subscription != sub.Subscription ||
			len(tc.Added[0].Tools) != 1 || tc.Added[0].Tools[0] != (ToolRef{Name: "late-tool", Version: "1.0.0", Change: "added"}) {
			t.Fatalf("notification %+v", tc)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no tools_changed notification")
	}
	if err := c.Call(context.Background(), "aios/registry.unsubscribe", map[string]any{"subscription": sub.Subscription}, nil); err != nil {
		t.Fatal(err)
	}
	_ = ts.h.RemoveProvider("org.test.late")
	select {
	case tc := <-got:
		t.Fatalf("notification after unsubscribe: %+v", tc)
	case <-time.After(200 * time.Millisecond):
	}
	err := c.Call(context.Background(), "aios/registry.unsubscribe", map[string]any{"subscription": sub.Subscription}, nil)
	if code, _ := rpcCode(err); code != -32001 {
		t.Fatalf("second unsubscribe: %v", err)
	}
}

func TestSSE(t *testing.T) {
	ts := newTestServer(t, "", true)
	req, _ := http.NewRequest(http.MethodGet, ts.url+"/events?events=added", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	r := bufio.NewReader(resp.Body)
	if line, _ := r.ReadString('\n'); !strings.HasPrefix(line, ": subscribed") {
		t.Fatalf("first line %q", line)
	}
	p := native.New(abi.ProviderInfo{ID: "org.test.sse", Version: "1.0.0"})
	p.MustRegister(abi.ToolDef{Name: "sse-tool"}, func(context.Context, any, abi.Env) (any, error) { return nil, nil })
	go func() { _ = ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test"}) }()
	var event, data string
	for data == "" {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			data = v
		}
	}
	var n struct {
		Method string
		Params ToolsChanged
	}
	if err := json.Unmarshal([]byte(data), &n); err != nil {
		t.Fatal(err)
	}
	if event != NotificationToolsChanged || n.Method != NotificationToolsChanged || n.Params.Added[0].ID != "org.test.sse" || n.Params.Added[0].Tools[0].Name != "sse-tool" {
		t.Fatalf("event %q data %s", event, data)
	}
	// Without a token: 401.
	resp2, _ := http.Get(ts.url + "/events")
	resp2.Body.Close()
	if resp2.StatusCode != 401 {
		t.Fatalf("unauthenticated /events: %d", resp2.StatusCode)
	}
}

func TestWellKnownAndMetrics(t *testing.T) {
	ts := newTestServer(t, "  export: ['add']\n", true)
	key, err := trust.GenerateKey("EdDSA", "host-key")
	if err != nil {
		t.Fatal(err)
	}
	ts.s.SetSigningKey(key)
	get := func(path string) []byte {
		resp, err := http.Get(ts.url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return b
	}
	cardBytes := get("/.well-known/aios-adapter.json")
	card, err := discovery.ParseCard(cardBytes, "host card")
	if err != nil {
		t.Fatalf("the host card does not validate: %v\n%s", err, cardBytes)
	}
	var names []string
	for _, s := range card.Skills {
		names = append(names, s.ID)
	}
	if strings.Join(names, ",") != "add,echo" {
		t.Fatalf("exported skills %v, want add (export) and echo (mcp_exportable)", names)
	}
	if card.Endpoints.RPC != ts.url+"/rpc" {
		t.Fatalf("endpoints %+v", card.Endpoints)
	}
	keys, err := trust.ParseJWKS(get("/.well-known/jwks.json"), abi.Community, "jwks")
	if err != nil {
		t.Fatal(err)
	}
	ks := trust.NewKeyStore(nil)
	ks.Add(keys...)
	if v, err := trust.VerifyCard(context.Background(), cardBytes, ks); err != nil || v.KeyID != "host-key" {
		t.Fatalf("verifying the host card with its JWKS: %v", err)
	}
	var health map[string]any
	_ = json.Unmarshal(get("/health"), &health)
	if health["status"] != "ok" {
		t.Fatalf("health %v", health)
	}
	// The build's version, as `aios-host version` and the MCP handshakes
	// say it (each said a constant "0.1.0" of its own, the MCP server
	// "devel-<revision>"), SemVer as a card's must be (ParseCard above).
	if health["version"] != buildinfo.Version() || card.Adapter.Version != buildinfo.Version() {
		t.Fatalf("health version %v, card version %q, want %q", health["version"], card.Adapter.Version, buildinfo.Version())
	}
	for range 3 {
		httpPost(t, ts.url+"/rpc", testToken, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":1}}}`)
	}
	httpPost(t, ts.url+"/rpc", testToken, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fail"}}`)
	metrics := string(get("/metrics"))
	for _, want := range []string{
		`aios_tool_calls_total{code="OK",runtime="native",tool="echo"} 3`,
		`aios_tool_calls_total{code="ProviderError",runtime="native",tool="fail"} 1`,
		`aios_tool_call_errors_total{code="ProviderError"} 1`,
		`aios_tool_call_duration_seconds_bucket{runtime="native",tool="echo"`,
		`aios_providers{runtime="native"} 1`,
		`aios_rpc_requests_total{method="tools/call",transport="http"} 4`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestRegistrySearchAndInfo(t *testing.T) {
	ts := newTestServer(t, "", false)
	ts.startDiscovery(t)
	c := dial(t, ts)
	ctx := context.Background()
	type searchRes struct {
		Adapters []AdapterSummary
		Total    int
	}
	cases := []struct {
		params map[string]any
		total  int
	}{
		{map[string]any{}, 1},
		{map[string]any{"query": "ECHO"}, 1},
		{map[string]any{"query": "echo nothing-like-this"}, 0},
		{map[string]any{"type": "native"}, 1},
		{map[string]any{"type": "Native"}, 1}, // runtimes and kinds ignore case, as the query does
		{map[string]any{"type": "wasm"}, 0},
		{map[string]any{"capabilities": []string{"streaming"}}, 0},
		{map[string]any{"capabilities": []string{"CallTool(x)"}}, 0},
		{map[string]any{"limit": 1}, 1},
	}
	for _, cs := range cases {
		var r searchRes
		if err := c.Call(ctx, "aios/registry.search", cs.params, &r); err != nil {
			t.Fatal(err)
		}
		if r.Total != cs.total || len(r.Adapters) != cs.total {
			t.Errorf("search %v: total %d, %d adapters; want %d", cs.params, r.Total, len(r.Adapters), cs.total)
		}
	}
	var r searchRes
	_ = c.Call(ctx, "aios/registry.search", map[string]any{"query": "echo"}, &r)
	if a := r.Adapters[0]; a.ID != "org.test.native" || a.SkillsCount != 5 || a.Status != "available" || a.Version != "1.0.0" {
		t.Fatalf("adapter %+v", a)
	}
	var info struct {
		Adapter      discovery.AdapterInfo
		Capabilities discovery.CardCapabilities
		Skills       []discovery.Skill
		Status       InfoStatus
	}
	if err := c.Call(ctx, "aios/registry.info", map[string]any{"adapter_id": "org.test.native"}, &info); err != nil {
		t.Fatal(err)
	}
	if info.Adapter.ID != "org.test.native" || len(info.Skills) != 5 || !info.Status.Available || info.Status.Trust != "System" {
		t.Fatalf("info %+v", info)
	}
	err := c.Call(ctx, "aios/registry.info", map[string]any{"adapter_id": "org.none.such"}, nil)
	if code, ac := rpcCode(err); code != -32001 || ac != abi.NotFound {
		t.Fatalf("unknown adapter: %v", err)
	}
	var ref map[string]any
	if err := c.Call(ctx, "aios/registry.refresh", map[string]any{"scope": "local"}, &ref); err != nil || ref["scope"] != "local" {
		t.Fatalf("refresh: %v %v", ref, err)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// pooled is a provider that reports a worker pool (host.PoolStats).
type pooled struct{ *native.Provider }

func (pooled) PoolStats() (idle, busy int) { return 3, 1 }

// wrapped hides its provider's PoolStats behind Unwrap, as discovery's
// generation and Adapter Card wrappers do for every provider loaded from a
// plugin folder (whose pools /metrics did not see).
type wrapped struct{ abi.Provider }

func (w wrapped) Unwrap() abi.Provider { return w.Provider }

// TestMetricsSeeHostCalls: calls made on the host directly — not through
// the server — and nested calls show up in /metrics (the server observes
// the host with OnCall), and pool sizes of providers implementing
// host.PoolStats are exported.
func TestMetricsSeeHostCalls(t *testing.T) {
	ts := newTestServer(t, "", true)
	p := native.New(abi.ProviderInfo{ID: "org.test.pooled", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "outer"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		return env.CallTool(ctx, "echo", "", map[string]any{"value": 1})
	})
	if err := ts.h.AddProvider(context.Background(), pooled{p}, host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	p2 := native.New(abi.ProviderInfo{ID: "org.test.wrapped"})
	p2.MustRegister(abi.ToolDef{Name: "inner"}, func(context.Context, any, abi.Env) (any, error) { return 1, nil })
	if err := ts.h.AddProvider(context.Background(), wrapped{wrapped{pooled{p2}}}, host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 2 {
		if _, err := ts.h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: "outer", Params: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ts.h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: "no-such-tool", Params: map[string]any{}}); abi.CodeOf(err) != abi.NotFound {
		t.Fatalf("unknown tool: %v", err)
	}
	resp, err := http.Get(ts.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	metrics := string(body)
	for _, want := range []string{
		`aios_tool_calls_total{code="OK",runtime="native",tool="outer"} 2`,
		`aios_tool_calls_total{code="OK",runtime="native",tool="echo"} 2`,
		`aios_tool_calls_nested_total{runtime="native"} 2`,
		`aios_tool_calls_total{code="NotFound",runtime="none",tool="unknown"} 1`,
		`aios_tool_call_errors_total{code="NotFound"} 1`,
		`aios_tool_call_duration_seconds_count{runtime="native",tool="outer"} 2`,
		`aios_provider_pool{provider="org.test.pooled",runtime="native",state="idle"} 3`,
		`aios_provider_pool{provider="org.test.pooled",runtime="native",state="busy"} 1`,
		`aios_provider_pool{provider="org.test.wrapped",runtime="native",state="idle"} 3`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// After the server closes, the host no longer feeds its metrics.
	ts.s.Close()
	if _, err := ts.h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: "outer", Params: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rec := httptest.NewRecorder()
	ts.s.Metrics().Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	out.WriteString(rec.Body.String())
	if !strings.Contains(out.String(), `aios_tool_calls_total{code="OK",runtime="native",tool="outer"} 2`) {
		t.Errorf("calls after Close were counted")
	}
}

// TestSubscriptionOutlivesIdleTimeout: a socket connection that holds a
// subscription is not idle while it waits for notifications; it used to be
// closed after server.idle_timeout, losing every later change.
func TestSubscriptionOutlivesIdleTimeout(t *testing.T) {
	ts := newTestServer(t, "  idle_timeout: 200ms\n", false)
	c := dial(t, ts)
	got := make(chan ToolsChanged, 8)
	c.OnNotify(func(method string, params json.RawMessage) {
		var tc ToolsChanged
		if method == NotificationToolsChanged && json.Unmarshal(params, &tc) == nil {
			got <- tc
		}
	})
	if err := c.Call(context.Background(), "aios/registry.subscribe", map[string]any{"events": []string{"added"}}, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		time.Sleep(500 * time.Millisecond) // over twice the idle timeout
		id := fmt.Sprintf("org.test.late%d", i)
		p := native.New(abi.ProviderInfo{ID: id, Version: "1.0.0"})
		p.MustRegister(abi.ToolDef{Name: fmt.Sprintf("late-%d", i)}, func(context.Context, any, abi.Env) (any, error) { return nil, nil })
		if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test"}); err != nil {
			t.Fatal(err)
		}
		select {
		case tc := <-got:
			if len(tc.Added) != 1 || tc.Added[0].ID != id || tc.Added[0].Tools[0].Name != fmt.Sprintf("late-%d", i) {
				t.Fatalf("notification %+v", tc)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no notification for change %d: the subscribed connection was closed", i)
		}
	}
	// A connection without a subscription is still closed when idle.
	idle := dial(t, ts)
	time.Sleep(600 * time.Millisecond)
	if err := idle.Call(context.Background(), "aios/registry.search", map[string]any{"query": "late"}, nil); err == nil {
		t.Fatal("an idle connection without subscriptions was kept open")
	}
}

// TestInfoSkillsFollowTheCard: registry.info's skills carry the card's
// display names in the card's order (they were the tool names, by name),
// then tools the card does not list.
func TestInfoSkillsFollowTheCard(t *testing.T) {
	v := &adapterView{
		card: &discovery.Card{Skills: []discovery.Skill{{ID: "open-url", Name: "打开网址"}, {ID: "click", Name: "Click an element"}}},
		tools: []abi.ToolDef{
			{Name: "zz-extra", Version: "1.0.0"}, {Name: "click", Version: "1.0.0"}, {Name: "open-url", Version: "1.0.0"}, {Name: "aa-extra", Version: "1.0.0"},
		},
	}
	var got []string
	for _, sk := range infoSkills(v) {
		got = append(got, sk.ID+"="+sk.Name)
	}
	want := []string{"open-url=打开网址", "click=Click an element", "aa-extra=aa-extra", "zz-extra=zz-extra"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("skills %q, want %q", got, want)
	}
}

// TestMissingSoftwareIsUnavailable: an adapter whose card names software
// that is not installed is registered, but search reports it unavailable
// and info's status.available is false (a call answers Unavailable).
func TestMissingSoftwareIsUnavailable(t *testing.T) {
	ts := newTestServer(t, "", false)
	s := ts.s
	missing := &discovery.Card{Requirements: &discovery.Requirements{Software: &discovery.Software{
		Name: "Nowhere", Detection: &discovery.Detection{Executable: "aios-test-no-such-program-" + strconv.Itoa(os.Getpid())}}}}
	if s.softwareInstalled(&adapterView{card: missing}) {
		t.Fatal("a program that does not exist counts as installed")
	}
	if !s.softwareInstalled(&adapterView{card: &discovery.Card{}}) || !s.softwareInstalled(nil) {
		t.Fatal("a card without requirements counts as missing software")
	}
	// An unversioned provider is reported as 0.0.0 (version is a required SemVer).
	p := native.New(abi.ProviderInfo{ID: "org.test.unversioned"})
	p.MustRegister(abi.ToolDef{Name: "unversioned-tool"}, func(context.Context, any, abi.Env) (any, error) { return nil, nil })
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test"}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, ts)
	var r struct{ Adapters []AdapterSummary }
	if err := c.Call(context.Background(), "aios/registry.search", map[string]any{"query": "unversioned"}, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Adapters) != 1 || r.Adapters[0].Version != UnversionedAdapter {
		t.Fatalf("search: %+v", r.Adapters)
	}
}

// TestToolsListSource: tools/list reports where each provider was loaded
// from to local (socket) peers, for aios-host list --json, and not to HTTP
// peers.
func TestToolsListSource(t *testing.T) {
	ts := newTestServer(t, "", true)
	c := dial(t, ts)
	var list struct{ Tools []ToolInfo }
	if err := c.Call(context.Background(), "tools/list", nil, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) == 0 || list.Tools[0].Source != "test" {
		t.Fatalf("socket tools/list: %+v", list.Tools)
	}
	status, body := httpPost(t, ts.url+"/rpc", testToken, "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if status != 200 || !strings.Contains(string(body), `"name":"add"`) || strings.Contains(string(body), `"source"`) {
		t.Fatalf("HTTP tools/list: %d %s", status, body)
	}
}

// TestClientParentID: a parent_id a client gives is its own correlation
// id: the host records it as "client:<id>", never as one of its calls (a
// client could otherwise file its calls under another agent's call id).
func TestClientParentID(t *testing.T) {
	ts := newTestServer(t, "", false)
	c := dial(t, ts)
	got := make(chan string, 1)
	defer ts.h.OnCall(func(st host.CallStats) {
		select {
		case got <- st.ParentID:
		default:
		}
	})()
	if err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": 1}, "parent_id": "1abc-42"}, nil); err != nil {
		t.Fatal(err)
	}
	if p := <-got; p != "client:1abc-42" {
		t.Fatalf("parent id recorded as %q, want client:1abc-42", p)
	}
}

// TestSearchSkillNames: search looks at a card's skill display names and
// examples too (the seed's cards name skills in the user's language).
func TestSearchSkillNames(t *testing.T) {
	v := &adapterView{sum: AdapterSummary{ID: "org.aios.browser.chrome", Name: "Chrome"},
		card: &discovery.Card{Skills: []discovery.Skill{{ID: "open_url", Name: "打开网址", Examples: []string{"open example.com in a tab"}}}}}
	for q, want := range map[string]bool{"打开网址": true, "example.com": true, "chrome 网址": true, "firefox": false} {
		if got := v.matches(&searchParams{Query: q}); got != want {
			t.Errorf("query %q: %v, want %v", q, got, want)
		}
	}
}

// TestCloseAnswersHTTPCallsInFlight: the same over HTTP: the request's
// context ends with the server, so the call answers Cancelled at once and
// Close does not wait out its shutdown grace.
func TestCloseAnswersHTTPCallsInFlight(t *testing.T) {
	ts := newTestServer(t, "", true)
	type res struct {
		body string
		err  error
	}
	done := make(chan res, 1)
	go func() {
		req, _ := http.NewRequest("POST", ts.url+"/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- res{err: err}
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		done <- res{body: string(b), err: err}
	}()
	ts.waitSlow(t, 1)
	start := time.Now()
	if err := ts.s.Close(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	select {
	case r := <-done:
		if r.err != nil || !strings.Contains(r.body, "Cancelled") {
			t.Fatalf("the HTTP call in flight got body %q, err %v; want a Cancelled answer", r.body, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer for the HTTP call in flight")
	}
	if took > 1500*time.Millisecond {
		t.Fatalf("Close took %v (waited out the shutdown grace)", took)
	}
}

// TestCloseAnswersCallsInFlight: when the server closes (SIGTERM), a call
// in flight on the socket is cancelled and its client gets the answer
// (Cancelled), not a connection closed under it.
func TestCloseAnswersCallsInFlight(t *testing.T) {
	ts := newTestServer(t, "", false)
	c := dial(t, ts)
	done := make(chan error, 1)
	go func() { done <- c.Call(context.Background(), "tools/call", map[string]any{"name": "slow"}, nil) }()
	ts.waitSlow(t, 1)
	start := time.Now()
	if err := ts.s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) {
			t.Fatalf("the call in flight got %v, want a JSON-RPC error answer", err)
		}
		if _, code := rpcCode(err); code != abi.Cancelled {
			t.Fatalf("the call in flight got %v, want Cancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer for the call in flight")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("Close took %v", took)
	}
}

// unhealthy is a provider whose health check fails (a remote adapter
// whose endpoints.health does not answer).
type unhealthy struct{ abi.Provider }

func (unhealthy) Health() (bool, string) { return false, "health endpoint answered 503" }

// TestUnhealthyAdapterUnavailable: search and info report an adapter whose
// health check fails as unavailable, with why.
func TestUnhealthyAdapterUnavailable(t *testing.T) {
	ts := newTestServer(t, "", false)
	p := native.New(abi.ProviderInfo{ID: "org.test.sick", Version: "1.0.0"})
	p.MustRegister(abi.ToolDef{Name: "sick-tool"}, func(context.Context, any, abi.Env) (any, error) { return nil, nil })
	if err := ts.h.AddProvider(context.Background(), unhealthy{p}, host.ProviderMeta{Source: "test"}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, ts)
	var r struct{ Adapters []AdapterSummary }
	if err := c.Call(context.Background(), "aios/registry.search", map[string]any{"query": "sick"}, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Adapters) != 1 || r.Adapters[0].Status != "unavailable" {
		t.Fatalf("search = %+v", r.Adapters)
	}
	var info struct{ Status InfoStatus }
	if err := c.Call(context.Background(), "aios/registry.info", map[string]any{"adapter_id": "org.test.sick"}, &info); err != nil {
		t.Fatal(err)
	}
	if info.Status.Available || !strings.Contains(info.Status.Error, "503") {
		t.Fatalf("info status = %+v", info.Status)
	}
}

// TestToolsCallDepth: a forwarded call's depth (remote adapters send
// theirs + 1) counts against limits.max_call_depth, so two hosts serving a
// tool through each other stop instead of looping until the deadline.
func TestToolsCallDepth(t *testing.T) {
	ts := newTestServer(t, "", false)
	c := dial(t, ts)
	ctx := context.Background()
	if err := c.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": "x"}, "depth": 3}, nil); err != nil {
		t.Fatalf("depth 3: %v", err)
	}
	err := c.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": "x"}, "depth": 9}, nil)
	if _, code := rpcCode(err); code != abi.DepthExceeded {
		t.Fatalf("depth 9 (limit 8): %v, want DepthExceeded", err)
	}
	err = c.Call(ctx, "tools/call", map[string]any{"name": "echo", "depth": -1}, nil)
	if err == nil || !strings.Contains(err.Error(), "depth must not be negative") {
		t.Fatalf("depth -1: %v", err)
	}
}

// TestBatchAnswerBounded: a batch whose answers together pass
// server.max_batch_answer_bytes gets the first answers and, for the
// rest, a TooLarge error with each one's id (a few bytes of tools/list
// requests asked for tens of MB); notifications still get none.
func TestBatchAnswerBounded(t *testing.T) {
	ts := newTestServer(t, "  max_batch_answer_bytes: 3000\n", false)
	var reqs []string
	for i := range 40 {
		reqs = append(reqs, fmt.Sprintf(`{"jsonrpc":"2.0","method":"tools/list","id":%d}`, i))
	}
	reqs = append(reqs, `{"jsonrpc":"2.0","method":"tools/list"}`)
	m := rawExchange(t, ts, "["+strings.Join(reqs, ",")+"]")
	batch := m["batch"].([]any)
	if len(batch) != 40 {
		t.Fatalf("%d answers, want 40 (the notification gets none)", len(batch))
	}
	ok, over := 0, 0
	seen := map[float64]bool{}
	for _, r := range batch {
		r := r.(map[string]any)
		seen[r["id"].(float64)] = true
		switch errCode(r) {
		case 0:
			ok++
		case -32012:
			over++
			if msg := r["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "server.max_batch_answer_bytes") {
				t.Errorf("message %q", msg)
			}
		default:
			t.Errorf("answer %v", r)
		}
	}
	if ok == 0 || over == 0 || len(seen) != 40 {
		t.Fatalf("%d answered, %d refused, %d ids: want some of each, every id once", ok, over, len(seen))
	}
	// Small batches are untouched.
	m = rawExchange(t, ts, `[{"jsonrpc":"2.0","method":"tools/list","id":1}]`)
	if b := m["batch"].([]any); len(b) != 1 || errCode(b[0].(map[string]any)) != 0 {
		t.Fatalf("one tools/list: %v", b)
	}
}

// TestSearchTypeIgnoresCase: type matches a tool name's first label
// ("compat" of compat.echo) without regard to case, as it does runtimes
// and kinds.
func TestSearchTypeIgnoresCase(t *testing.T) {
	v := &adapterView{sum: AdapterSummary{ID: "org.test.c", Runtime: "native", Kind: "provider"},
		tools: []abi.ToolDef{{Name: "compat.echo"}}}
	for typ, want := range map[string]bool{"compat": true, "COMPAT": true, "Compat": true, "NATIVE": true, "other": false} {
		if got := v.matches(&searchParams{Type: typ}); got != want {
			t.Errorf("type %q: %v, want %v", typ, got, want)
		}
	}
}
