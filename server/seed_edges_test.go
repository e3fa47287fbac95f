package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/host"
)

// seedCardUnsigned is seed 001 §2.2's card without its (placeholder)
// signature.
func seedCardUnsigned(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../discovery/testdata/seed_card.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "signature")
	out, _ := json.Marshal(m)
	return out
}

// seedServer starts a server whose discovery folder holds the seed's card.
func seedServer(t *testing.T) *testServer {
	t.Helper()
	cards, err := os.MkdirTemp("", "aiosseed")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(cards) })
	if err := os.WriteFile(filepath.Join(cards, "chrome.adapter.json"), seedCardUnsigned(t), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, "discovery: {dirs: ["+cards+"], desktop_dirs: [], known_adapters: false, watch: false}\ntrust: {folders: {"+cards+": Verified}}\n", false)
	ts.startDiscovery(t)
	return ts
}

// seedExchange sends the lines (the seed's requests verbatim) on one
// connection and reads n replies.
func seedExchange(t *testing.T, ts *testServer, n int, lines ...string) []map[string]any {
	t.Helper()
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	for _, l := range lines {
		var compact strings.Builder
		var v any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("seed request %s: %v", l, err)
		}
		b, _ := json.Marshal(v)
		compact.Write(b)
		if _, err := io.WriteString(conn, compact.String()+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(conn)
	var out []map[string]any
	for i := 0; i < n; i++ {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// TestSeedSearch: seed 001 §3.3's search request, verbatim, finds the
// seed's Chrome card, with the result shape the seed shows.
func TestSeedSearch(t *testing.T) {
	ts := seedServer(t)
	r := seedExchange(t, ts, 1, `{
    "jsonrpc": "2.0",
    "id": "1",
    "method": "aios/registry.search",
    "params": {
      "query": "browser",
      "type": "compat",
      "capabilities": ["streaming"],
      "limit": 10
    }
  }`)[0]
	if r["id"] != "1" || r["jsonrpc"] != "2.0" {
		t.Fatalf("reply %v", r)
	}
	res, _ := r["result"].(map[string]any)
	if res == nil {
		t.Fatalf("reply %v", r)
	}
	ads, _ := res["adapters"].([]any)
	if len(ads) != 1 || res["total"] != float64(1) {
		t.Fatalf("search result %v", res)
	}
	a := ads[0].(map[string]any)
	for _, k := range []string{"id", "name", "version", "skills_count", "status"} {
		if _, ok := a[k]; !ok {
			t.Errorf("adapter lacks %q: %v", k, a)
		}
	}
	if a["id"] != "org.aios.browser.chrome" || a["name"] != "Chrome 浏览器适配器" || a["version"] != "1.0.0" || a["skills_count"] != float64(3) {
		t.Fatalf("adapter %v", a)
	}
}

// TestSeedInfo: seed 001 §3.3's info request, verbatim.
func TestSeedInfo(t *testing.T) {
	ts := seedServer(t)
	r := seedExchange(t, ts, 1, `{
    "jsonrpc": "2.0",
    "id": "2",
    "method": "aios/registry.info",
    "params": {
      "adapter_id": "org.aios.browser.chrome"
    }
  }`)[0]
	res, _ := r["result"].(map[string]any)
	if res == nil || r["id"] != "2" {
		t.Fatalf("reply %v", r)
	}
	ad, _ := res["adapter"].(map[string]any)
	if ad == nil || ad["id"] != "org.aios.browser.chrome" || ad["protocol_version"] != "0.3.0" || ad["author"] != "AIOS Team" || ad["license"] != "MIT" {
		t.Fatalf("adapter %v", res["adapter"])
	}
	caps, _ := res["capabilities"].(map[string]any)
	for _, k := range []string{"streaming", "batch_operations", "async_tasks", "push_notifications", "state_transition_history"} {
		if _, ok := caps[k]; !ok {
			t.Errorf("capabilities lack %q: %v", k, caps)
		}
	}
	skills, _ := res["skills"].([]any)
	if len(skills) != 3 {
		t.Fatalf("skills %v", res["skills"])
	}
	s0 := skills[0].(map[string]any)
	if s0["id"] != "compat.browser.open_url" || s0["name"] != "打开网址" || s0["permission_level"] != "medium" || s0["input_schema"] == nil {
		t.Fatalf("skill 0 %v", s0)
	}
	if ex, _ := s0["examples"].([]any); len(ex) != 2 {
		t.Fatalf("skill 0 examples %v", s0["examples"])
	}
	st, _ := res["status"].(map[string]any)
	for _, k := range []string{"available", "software_installed", "software_running"} {
		if _, ok := st[k].(bool); !ok {
			t.Errorf("status lacks boolean %q: %v", k, st)
		}
	}
}

// TestSeedRefreshSubscribe: §3.3 refresh and §5.2 subscribe, verbatim,
// then unsubscribe (§7).
func TestSeedRefreshSubscribe(t *testing.T) {
	ts := seedServer(t)
	rs := seedExchange(t, ts, 1, `{
    "jsonrpc": "2.0",
    "id": "3",
    "method": "aios/registry.refresh",
    "params": {
      "scope": "local"
    }
  }`)
	if rs[0]["error"] != nil || rs[0]["result"] == nil {
		t.Fatalf("refresh %v", rs[0])
	}
	rs = seedExchange(t, ts, 1, `{
    "jsonrpc": "2.0",
    "id": "4",
    "method": "aios/registry.subscribe",
    "params": {
      "events": ["added", "removed", "updated"]
    }
  }`)
	res, _ := rs[0]["result"].(map[string]any)
	if res == nil || res["subscription"] == nil {
		t.Fatalf("subscribe %v", rs[0])
	}
}

// TestSeedUnsubscribeWithoutID: the seed (§5.2, §7) subscribes with
// {"events": [...]} and lists aios/registry.unsubscribe ("取消订阅") with no
// params: a client written to the seed knows no subscription id. Without
// one, unsubscribe ends every subscription of the connection, and no
// notification follows.
func TestSeedUnsubscribeWithoutID(t *testing.T) {
	ts := seedServer(t)
	for _, unsub := range []string{
		`{"jsonrpc": "2.0", "id": "5", "method": "aios/registry.unsubscribe"}`,
		`{"jsonrpc": "2.0", "id": "5", "method": "aios/registry.unsubscribe", "params": {}}`,
	} {
		conn, err := net.Dial("unix", ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(conn)
		send := func(line string) map[string]any {
			t.Helper()
			if _, err := io.WriteString(conn, line+"\n"); err != nil {
				t.Fatal(err)
			}
			b, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			return m
		}
		sub := send(`{"jsonrpc": "2.0", "id": "4", "method": "aios/registry.subscribe", "params": {"events": ["added", "removed", "updated"]}}`)
		if sub["error"] != nil {
			t.Fatalf("subscribe %v", sub)
		}
		sub2 := send(`{"jsonrpc": "2.0", "id": "4b", "method": "aios/registry.subscribe", "params": {"events": ["added"]}}`)
		if sub2["error"] != nil {
			t.Fatalf("subscribe %v", sub2)
		}
		un := send(unsub)
		if un["error"] != nil || un["result"] == nil {
			t.Fatalf("%s: %v", unsub, un)
		}
		// Nothing is sent after it: a registration shows no notification,
		// only the answer to the next request.
		p := nativeProvider("org.test.after-unsub", "after-")
		if err := ts.h.AddProvider(t.Context(), p, hostMetaTest()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		next := send(`{"jsonrpc": "2.0", "id": "6", "method": "tools/list"}`)
		if next["id"] != "6" {
			t.Fatalf("a notification came after unsubscribe: %v", next)
		}
		_ = ts.h.RemoveProvider("org.test.after-unsub")
		conn.Close()
	}
}

func hostMetaTest() host.ProviderMeta { return host.ProviderMeta{Source: "test"} }

// TestSeedInitialize: seed 001 §1.2 declares an AIOS adapter's
// capabilities by "Adapter Card + initialize" (MCP: the initialize
// handshake). A client that starts with initialize gets the host's
// declaration — its adapter record and capabilities, as in its card —
// instead of "method not found"; an unsupported protocol version is
// refused (§3.2 step 3).
func TestSeedInitialize(t *testing.T) {
	ts := seedServer(t)
	rs := seedExchange(t, ts, 3,
		`{"jsonrpc": "2.0", "id": "0", "method": "initialize", "params": {"protocol_version": "0.3.0", "client_info": {"name": "probe"}}}`,
		`{"jsonrpc": "2.0", "id": "0b", "method": "initialize"}`,
		`{"jsonrpc": "2.0", "id": "0c", "method": "initialize", "params": {"protocol_version": "9.0.0"}}`)
	byID := map[any]map[string]any{}
	for _, r := range rs {
		byID[r["id"]] = r
	}
	for _, id := range []string{"0", "0b"} {
		res, _ := byID[id]["result"].(map[string]any)
		if res == nil {
			t.Fatalf("initialize %s: %v", id, byID[id])
		}
		ad, _ := res["adapter"].(map[string]any)
		if res["protocol_version"] != "0.3.0" || ad == nil || ad["id"] != ts.s.HostID() || ad["protocol_version"] != "0.3.0" {
			t.Fatalf("initialize %s: %v", id, res)
		}
		caps, _ := res["capabilities"].(map[string]any)
		if _, ok := caps["streaming"].(bool); !ok {
			t.Fatalf("initialize %s capabilities: %v", id, res["capabilities"])
		}
	}
	e, _ := byID["0c"]["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32602) || !strings.Contains(e["message"].(string), "0.3.0") {
		t.Fatalf("initialize with protocol 9.0.0: %v", byID["0c"])
	}
}

// TestSeedSearchChinese: the seed's cards are in Chinese; a search for
// words of the adapter's name, a skill's name, description or example
// finds it.
func TestSeedSearchChinese(t *testing.T) {
	ts := seedServer(t)
	for _, q := range []string{"浏览器", "打开网址", "提取页面内容", "无线耳机", "Chrome DevTools"} {
		r := seedExchange(t, ts, 1, `{"jsonrpc": "2.0", "id": "1", "method": "aios/registry.search", "params": {"query": "`+q+`"}}`)[0]
		res, _ := r["result"].(map[string]any)
		if res == nil || res["total"] != float64(1) {
			t.Errorf("search %q: %v", q, r)
		}
	}
}

// TestSeedNotificationOfCard: a card dropped into a watched folder is
// announced as the seed's §5.1 shows: added [{id, name}] with the card's
// adapter id and display name, removed and updated as empty arrays.
func TestSeedNotificationOfCard(t *testing.T) {
	cards, err := os.MkdirTemp("", "aiosseed")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(cards) })
	ts := newTestServer(t, "discovery: {dirs: ["+cards+"], desktop_dirs: [], known_adapters: false, debounce: 10ms}\ntrust: {folders: {"+cards+": Verified}}\n", false)
	ts.startDiscovery(t)
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	if _, err := io.WriteString(conn, `{"jsonrpc":"2.0","id":"4","method":"aios/registry.subscribe","params":{"events":["added","removed","updated"]}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cards, "chrome.adapter.json"), seedCardUnsigned(t), 0o644); err != nil {
		t.Fatal(err)
	}
	line, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var n struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		ID      any    `json:"id"`
		Params  map[string]json.RawMessage
	}
	if err := json.Unmarshal(line, &n); err != nil {
		t.Fatal(err)
	}
	if n.Method != "aios/notification.tools_changed" || n.ID != nil || n.JSONRPC != "2.0" {
		t.Fatalf("notification %s", line)
	}
	var added []map[string]any
	_ = json.Unmarshal(n.Params["added"], &added)
	if len(added) != 1 || added[0]["id"] != "org.aios.browser.chrome" || added[0]["name"] != "Chrome 浏览器适配器" {
		t.Fatalf("added %s", n.Params["added"])
	}
	for _, k := range []string{"removed", "updated"} {
		if string(n.Params[k]) != "[]" {
			t.Fatalf("%s is %s, want []", k, n.Params[k])
		}
	}
}
