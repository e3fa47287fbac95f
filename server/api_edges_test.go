package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"

	dto "github.com/prometheus/client_model/go"
)

// A subscription costs the host a goroutine, a registry subscriber with a
// 64-event buffer and a turn in every registry change's fan-out (under the
// registry's write lock). One connection may not hold any number of them:
// batches of subscribe requests, line after line, would otherwise grow the
// host without bound and slow every registration.
func TestSubscriptionsPerConnectionBounded(t *testing.T) {
	ts := newTestServer(t, "", false)
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	r := bufio.NewReaderSize(conn, 1<<20)
	const lines, perBatch = 10, 100
	made, refused := 0, 0
	var refusal map[string]any
	for l := 0; l < lines; l++ {
		var b strings.Builder
		b.WriteByte('[')
		for i := 0; i < perBatch; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"aios/registry.subscribe","params":{"events":["added"]}}`, l*perBatch+i)
		}
		b.WriteString("]\n")
		if _, err := conn.Write([]byte(b.String())); err != nil {
			t.Fatal(err)
		}
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("batch %d: %v", l, err)
		}
		var resps []map[string]any
		if err := json.Unmarshal(line, &resps); err != nil {
			t.Fatalf("batch %d: %v: %.200s", l, err, line)
		}
		for _, m := range resps {
			if m["error"] != nil {
				refused++
				refusal = m["error"].(map[string]any)
			} else {
				made++
			}
		}
	}
	var g dto.Metric
	_ = ts.s.metrics.subscribers.Write(&g)
	if made > maxSubscriptionsPerConn || g.GetGauge().GetValue() > maxSubscriptionsPerConn {
		t.Fatalf("one connection holds %d subscriptions (gauge %v); want at most %d", made, g.GetGauge().GetValue(), maxSubscriptionsPerConn)
	}
	if refused != lines*perBatch-made {
		t.Fatalf("%d made, %d refused of %d", made, refused, lines*perBatch)
	}
	if refusal["code"] != float64(-32012) || !strings.Contains(fmt.Sprint(refusal["message"]), fmt.Sprint(maxSubscriptionsPerConn)) {
		t.Fatalf("refusal %v: want -32012 TooLarge naming the limit", refusal)
	}
	// Unsubscribing makes room again.
	for _, req := range []string{`{"jsonrpc":"2.0","id":"u","method":"aios/registry.unsubscribe"}`, `{"jsonrpc":"2.0","id":"s","method":"aios/registry.subscribe"}`} {
		if _, err := conn.Write([]byte(req + "\n")); err != nil {
			t.Fatal(err)
		}
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal(line, &m)
		if m["error"] != nil {
			t.Fatalf("%s after unsubscribe: %s", req, line)
		}
	}
}

// aios/registry.search's capabilities are card features (seed §3.3:
// "streaming") or capability strings. One that is neither — that does not
// parse as a capability: "ReadSpace(" , "ReadSpace" without its space,
// "push notifications" — matched nothing, so the client got an empty
// list, as if no adapter had it, instead of being told. (Any identifier
// is a capability kind, so "streamin" is a search for a kind nobody
// holds, not an error.)
func TestSearchUnknownCapabilityRefused(t *testing.T) {
	ts := seedServer(t)
	for _, c := range []string{"ReadSpace(", "ReadSpace", "push notifications"} {
		m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"aios/registry.search","params":{"capabilities":["`+c+`"]}}`)
		if errCode(m) != -32602 {
			t.Fatalf("capabilities [%q]: %v; want -32602", c, m)
		}
		msg := fmt.Sprint(m["error"].(map[string]any)["message"])
		if !strings.Contains(msg, `"`+c+`"`) || !strings.Contains(msg, "streaming") {
			t.Fatalf("capabilities [%q]: message %q should name it and the card features", c, msg)
		}
	}
	// What is known still works: a card feature, a capability.
	for _, c := range []string{"streaming", "ReadSpace(*)"} {
		m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"aios/registry.search","params":{"capabilities":["`+c+`"]}}`)
		if m["error"] != nil {
			t.Fatalf("capabilities [%q]: %v", c, m)
		}
	}
	m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"aios/registry.search","params":{"capabilities":["streaming"]}}`)
	if m["result"].(map[string]any)["total"] != float64(1) {
		t.Fatalf("streaming: %v", m)
	}
}

// A JSON text is UTF-8 (RFC 8259 §8.1; docs/discovery.md: one message per
// line, UTF-8 JSON). A request with invalid UTF-8 in its id was served,
// and the id echoed byte for byte, so the answer itself was not UTF-8:
// a strict client (Python's json over a UTF-8 stream) could not read it,
// and lost every answer on that line. Invalid UTF-8 is a parse error.
func TestInvalidUTF8IsParseError(t *testing.T) {
	ts := newTestServer(t, "", false)
	for _, line := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"tools/list\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"value\":\"\xc3\"}}}",
	} {
		reply := rawLine(t, ts, line)
		if !utf8.Valid(reply) {
			t.Fatalf("reply to %q is not UTF-8: %q", line, reply)
		}
		var m map[string]any
		if err := json.Unmarshal(reply, &m); err != nil {
			t.Fatalf("reply %q: %v", reply, err)
		}
		if errCode(m) != -32700 || !strings.Contains(fmt.Sprint(m["error"]), "UTF-8") {
			t.Fatalf("reply to %q: %v; want -32700 saying the message is not UTF-8", line, m)
		}
	}
}

// rawLine sends one line on a new connection and returns the reply line.
func rawLine(t *testing.T, ts *testServer, line string) []byte {
	t.Helper()
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 30 s: a megabyte line read and answered under a loaded -race run
	// passed 5 s.
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := conn.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	reply, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		if len(line) > 300 { // the request is not the failure's news
			line = fmt.Sprintf("%.300s… (%d bytes)", line, len(line))
		}
		t.Fatalf("%q: no reply: %v", line, err)
	}
	return reply
}

// Paths on this host are for local peers only (docs/discovery.md: a
// provider's source is reported on the socket, not to HTTP peers). The
// refresh answer's errors named every failing unit by its absolute path
// (keys and messages: /home/<user>/…) to any HTTP token holder. Over HTTP
// a unit is named by its file name, and its folder is cut from messages.
func TestRefreshErrorsHidePathsOverHTTP(t *testing.T) {
	dir, err := os.MkdirTemp("", "aiosplug")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "bad.adapter.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, "discovery: {dirs: ["+dir+"], desktop_dirs: [], known_adapters: false, watch: false}\n", true)
	ts.startDiscovery(t)
	req := `{"jsonrpc":"2.0","id":1,"method":"aios/registry.refresh","params":{"scope":"local"}}`
	status, body := httpPost(t, ts.url+"/rpc", testToken, "application/json", req)
	if status != 200 {
		t.Fatalf("HTTP refresh: %d %s", status, body)
	}
	var res struct {
		Result struct{ Errors map[string]string } `json:"result"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	msg, ok := res.Result.Errors["bad.adapter.json"]
	if len(res.Result.Errors) != 1 || !ok || !strings.Contains(msg, "line 1, column 2: not JSON: invalid character 'n'") {
		t.Fatalf("HTTP refresh errors %v: want bad.adapter.json with its problem", res.Result.Errors)
	}
	if strings.Contains(string(body), dir) {
		t.Fatalf("HTTP refresh names the folder %s: %s", dir, body)
	}
	// A local peer still gets the paths.
	m := rawExchange(t, ts, req)
	errs := m["result"].(map[string]any)["errors"].(map[string]any)
	if _, ok := errs[filepath.Join(dir, "bad.adapter.json")]; !ok {
		t.Fatalf("socket refresh errors %v: want the path", errs)
	}
}

// JSON-RPC 2.0 lets a client send params by position; a call without any
// is often sent with "params": [] (jayson and other client libraries do
// so by default). Every method answered -32602 "pass params by name" to
// that, although an empty array passes no parameter at all. It now means
// what an absent params means; a non-empty array is still refused.
func TestEmptyParamsArray(t *testing.T) {
	ts := newTestServer(t, "", false)
	for _, method := range []string{"tools/list", "aios/registry.search", "aios/registry.subscribe", "initialize"} {
		m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":[ ]}`)
		if m["error"] != nil || m["result"] == nil {
			t.Fatalf("%s with params []: %v", method, m)
		}
	}
	m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[true]}`)
	if errCode(m) != -32602 {
		t.Fatalf("params [true]: %v", m)
	}
}

// The same for aios/registry.info: status.source is kept from HTTP peers,
// but status.error (and shadowed_by, warnings, software_reason, which hold
// paths the same way) gave the unit's absolute path away: a card that
// stopped parsing answered "/tmp/…/x.adapter.json: not a JSON object".
func TestInfoHidesPathsOverHTTP(t *testing.T) {
	dir, err := os.MkdirTemp("", "aiosplug")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	card := `{"adapter":{"id":"org.x.y","name":"X","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},` +
		`"skills":[{"id":"a.b","name":"ab","permission_level":"low"}],"endpoints":{"rpc":"unix:///nonexistent.sock"}}`
	for _, f := range []string{"x.adapter.json", "y.adapter.json"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(card), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A card's local socket needs Network(localhost) (discovery's TestUnixEndpointNeedsLocalNetwork).
	ts := newTestServer(t, "discovery: {dirs: ["+dir+"], desktop_dirs: [], known_adapters: false, watch: false}\ntrust: {caps: {Untrusted: [\"CallTool(*)\", \"Network(localhost)\"]}}\n", true)
	ts.startDiscovery(t)
	if err := os.WriteFile(filepath.Join(dir, "x.adapter.json"), []byte(card[:50]), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	req := `{"jsonrpc":"2.0","id":1,"method":"aios/registry.info","params":{"adapter_id":"org.x.y"}}`
	status, body := httpPost(t, ts.url+"/rpc", testToken, "application/json", req)
	if status != 200 || !strings.Contains(string(body), `"error":"x.adapter.json: line 1, column 51: the card ends before its JSON does`) {
		t.Fatalf("HTTP registry.info: %d %s; want the unit's problem by its file name", status, body)
	}
	if strings.Contains(string(body), dir) {
		t.Fatalf("HTTP registry.info names the folder %s: %s", dir, body)
	}
	m := rawExchange(t, ts, req)
	if st := m["result"].(map[string]any)["status"].(map[string]any); !strings.Contains(fmt.Sprint(st["error"]), dir) {
		t.Fatalf("socket registry.info status %v: want the path", st)
	}
}

// GET /health needs no token, so anyone who reaches the HTTP port reads
// it. While the audit log could not be written it carried audit_error,
// the writer's error as is: "write /home/<user>/…/audit.jsonl: no space
// left on device", the host's data path. It now says degraded and why in
// words that name no path (the host's log and the socket have the rest).
func TestHealthHidesAuditPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	var full atomic.Bool
	aw, err := audit.Open(path, audit.Options{WriteFault: func(f *os.File, b []byte) (int, error) {
		if full.Load() {
			return 0, syscall.ENOSPC
		}
		return f.Write(b)
	}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: config.Default(), Audit: aw})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	if err := h.AddProvider(context.Background(), nativeProvider("org.test.native", ""), host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Host: h})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	full.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for h.AuditFailing() == nil {
		_, _ = h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "echo", Params: map[string]any{"value": 1}})
		if time.Now().After(deadline) {
			t.Fatal("the audit writer never failed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := http.Get(srv.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"degraded"`) {
		t.Fatalf("/health while the audit log fails: %d %s", resp.StatusCode, body)
	}
	if !strings.Contains(string(body), "no space left on device") {
		t.Fatalf("/health should still say why: %s", body)
	}
	if strings.Contains(string(body), dir) || strings.Contains(string(body), "audit.jsonl") {
		t.Fatalf("/health (no token needed) names the audit log's path: %s", body)
	}
}

// The HTTP side of the bound on subscriptions: each GET /events stream is
// a registry subscriber, a goroutine and a connection held open, and one
// token could open any number of them. An agent holds at most
// maxEventStreamsPerAgent streams at once; one more is answered 429 until
// one closes.
func TestEventStreamsPerAgentBounded(t *testing.T) {
	ts := newTestServer(t, "", true)
	tr := &http.Transport{MaxIdleConnsPerHost: 1}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	open := func() *http.Response {
		req, _ := http.NewRequest(http.MethodGet, ts.url+"/events", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var streams []*http.Response
	t.Cleanup(func() {
		for _, r := range streams {
			r.Body.Close()
		}
	})
	for i := 0; i < maxEventStreamsPerAgent; i++ {
		r := open()
		if r.StatusCode != 200 {
			t.Fatalf("stream %d: %d", i, r.StatusCode)
		}
		// Read the opening comment: the stream is subscribed.
		if line, _ := bufio.NewReader(r.Body).ReadString('\n'); !strings.HasPrefix(line, ": subscribed") {
			t.Fatalf("stream %d: %q", i, line)
		}
		streams = append(streams, r)
	}
	r := open()
	if r.StatusCode == 200 {
		r.Body.Close()
		t.Fatalf("stream %d opened; want 429 past %d", maxEventStreamsPerAgent+1, maxEventStreamsPerAgent)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), fmt.Sprint(maxEventStreamsPerAgent)) {
		t.Fatalf("stream %d: %d %s; want 429 naming the limit", maxEventStreamsPerAgent+1, r.StatusCode, body)
	}
	streams[0].Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := open()
		ok := r.StatusCode == 200
		r.Body.Close()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stream after one closed: %d", r.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// aios/registry.search checks every word of query against every adapter's
// text, so its cost is words × adapters × text: one 8 MB message of
// "zebra zebra …" (1.3 million words) cost over a second of CPU with 20
// small adapters, and a connection runs 32 messages at once. A query is a
// few words: repeated words count once, and more than maxSearchWords
// distinct words are refused.
func TestSearchQueryWordsBounded(t *testing.T) {
	ts := newTestServer(t, "", false)
	res, rerr := ts.s.registrySearch(json.RawMessage(`{"query":"` + strings.Repeat("echo ", 100000) + `"}`))
	if rerr != nil {
		t.Fatalf("repeated word: %v", rerr)
	}
	if res.(map[string]any)["total"] != 1 {
		t.Fatalf("repeated word: %v", res)
	}
	var words []string
	for i := 0; i <= maxSearchWords; i++ {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	_, rerr = ts.s.registrySearch(json.RawMessage(`{"query":"` + strings.Join(words, " ") + `"}`))
	if rerr == nil || rerr.Code != -32602 || !strings.Contains(rerr.Message, fmt.Sprint(maxSearchWords)) {
		t.Fatalf("%d words: %v; want -32602 naming the limit", len(words), rerr)
	}
	// What is matched against the adapters is the distinct words, cut
	// past the limit (a count, not a time: timings fail on a loaded
	// machine).
	if terms := searchTerms(strings.Repeat("zebra ", 1_300_000)); len(terms) != 1 {
		t.Fatalf("1.3 million repeated words give %d terms, want 1", len(terms))
	}
	if terms := searchTerms(strings.Repeat(strings.Join(words, " ")+" ", 1000)); len(terms) != maxSearchWords+1 {
		t.Fatalf("%d distinct words repeated give %d terms, want the scan cut at %d", len(words), len(terms), maxSearchWords+1)
	}
	if res, rerr := ts.s.registrySearch(json.RawMessage(`{"query":"` + strings.Repeat("zebra ", 1_300_000) + `"}`)); rerr != nil || res.(map[string]any)["total"] != 0 {
		t.Fatalf("1.3 million repeated words: %v %v", res, rerr)
	}
}
