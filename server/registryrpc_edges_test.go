package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// aios/registry.info over HTTP is meant to cut the discovery folders from
// status.software_reason and software_notes (docs/discovery.md; commit
// c7d70b1: "desktop folders under the user's home"), but the cut ran
// before software detection filled those fields in, so it cut nothing:
// a card whose desktop_file is missing answered an HTTP peer
// "x.desktop not found in /home/…/applications", in software_reason and
// in status.error.
func TestInfoSoftwareReasonHidesFoldersOverHTTP(t *testing.T) {
	dir, err := os.MkdirTemp("", "aiosplug")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	desk := filepath.Join(dir, "applications")
	cards := filepath.Join(dir, "cards")
	for _, d := range []string{desk, cards} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	card := `{"adapter":{"id":"org.x.sw","name":"X","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},` +
		`"skills":[{"id":"x.open","name":"open","permission_level":"low"}],"endpoints":{"rpc":"unix:///nonexistent/aios-probe.sock"},` +
		`"requirements":{"software":{"name":"X","detection":{"desktop_file":"aios-probe-missing.desktop"}}}}`
	if err := os.WriteFile(filepath.Join(cards, "x.adapter.json"), []byte(card), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, "discovery: {dirs: ["+cards+"], desktop_dirs: ["+desk+"], known_adapters: false, watch: false}\n"+
		"trust: {caps: {Untrusted: [\"CallTool(*)\", \"Network(localhost)\"]}}\n", true)
	ts.startDiscovery(t)
	req := `{"jsonrpc":"2.0","id":1,"method":"aios/registry.info","params":{"adapter_id":"org.x.sw"}}`
	status, body := httpPost(t, ts.url+"/rpc", testToken, "application/json", req)
	if status != 200 || !strings.Contains(string(body), `"software_reason":"aios-probe-missing.desktop not found in`) {
		t.Fatalf("HTTP registry.info: %d %s; want software_reason saying the desktop file is missing", status, body)
	}
	if strings.Contains(string(body), dir) {
		t.Fatalf("HTTP registry.info names the folder %s: %s", dir, body)
	}
	// The socket peer (local) still sees the path.
	m := rawExchange(t, ts, req)
	st := m["result"].(map[string]any)["status"].(map[string]any)
	if !strings.Contains(st["software_reason"].(string), desk) {
		t.Fatalf("socket registry.info status %v: want the desktop folder", st)
	}
}

// A -32700 said only "parse error: the message is not valid JSON": not
// where, nor what. A client writing JSON by hand (curl, a shell script)
// had to find the fault itself — a missing brace, two messages on one
// socket line, a byte order mark its editor added, an empty HTTP body.
// The message now says what the JSON decoder found and at which byte
// (data.details.offset, counted from 1 as in encoding/json), and names
// the empty body and the byte order mark.
func TestParseErrorSaysWhere(t *testing.T) {
	ts := newTestServer(t, "", true)
	req := `{"jsonrpc":"2.0","id":1,"method":"aios/registry.search"}`
	for _, c := range []struct {
		line, want string
		offset     float64
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"aios/registry.search"`, "unexpected end of JSON input", 0},
		{`{"jsonrpc":"2.0","id":1,"method":'aios/registry.search'}`, "invalid character '\\'' looking for beginning of value (at byte 34)", 34},
		{req + req, "invalid character '{' after top-level value (at byte 57)", 57},
		{"\ufeff" + req, "byte order mark", 0},
	} {
		for _, transport := range []string{"socket", "http"} {
			var m map[string]any
			if transport == "socket" {
				m = rawExchange(t, ts, c.line)
			} else {
				status, body := httpPost(t, ts.url+"/rpc", testToken, "application/json", c.line)
				if status != 200 || json.Unmarshal(body, &m) != nil {
					t.Fatalf("HTTP %q: %d %s", c.line, status, body)
				}
			}
			e, _ := m["error"].(map[string]any)
			if errCode(m) != -32700 || !strings.Contains(fmt.Sprint(e["message"]), c.want) {
				t.Errorf("%s %q: %v; want -32700 saying %q", transport, c.line, m, c.want)
				continue
			}
			if c.offset > 0 {
				d, _ := e["data"].(map[string]any)
				det, _ := d["details"].(map[string]any)
				if det["offset"] != c.offset {
					t.Errorf("%s %q: data %v; want details.offset %v", transport, c.line, d, c.offset)
				}
			}
		}
	}
	status, body := httpPost(t, ts.url+"/rpc", testToken, "application/json", " \n")
	if status != 200 || !strings.Contains(string(body), "-32700") || !strings.Contains(string(body), "empty") {
		t.Fatalf("HTTP empty body: %d %s; want -32700 saying the body is empty", status, body)
	}
}

// The seed's search answer has adapters and total, and no offset: total
// counts every match, also those past limit, so a client can tell that
// it saw only part (no defect; docs/discovery.md said neither this nor
// which members of an adapter may be absent: kind for a provider
// discovery did not load, as the test server's built-in one).
func TestSearchTotalPastLimit(t *testing.T) {
	dir, err := os.MkdirTemp("", "aiosplug")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, id := range []string{"a", "b"} {
		card := `{"adapter":{"id":"org.x.` + id + `","name":"X","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{"streaming":true},` +
			`"skills":[{"id":"compat.` + id + `","name":"s","permission_level":"low"}],"endpoints":{"rpc":"unix:///nonexistent/aios-probe.sock"}}`
		if err := os.WriteFile(filepath.Join(dir, id+".adapter.json"), []byte(card), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts := newTestServer(t, "discovery: {dirs: ["+dir+"], desktop_dirs: [], known_adapters: false, watch: false}\n"+
		"trust: {caps: {Untrusted: [\"CallTool(*)\", \"Network(localhost)\"]}}\n", false)
	ts.startDiscovery(t)
	m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":"1","method":"aios/registry.search","params":{"type":"compat","capabilities":["streaming"],"limit":1}}`)
	res, _ := m["result"].(map[string]any)
	ads, _ := res["adapters"].([]any)
	if len(ads) != 1 || res["total"] != float64(2) {
		t.Fatalf("search limit 1 of 2 matches: %v; want 1 adapter and total 2", m)
	}
	if a := ads[0].(map[string]any); a["id"] != "org.x.a" || a["kind"] != "card" || a["skills_count"] != float64(1) {
		t.Fatalf("adapter %v", a)
	}
	m = rawExchange(t, ts, `{"jsonrpc":"2.0","id":"1","method":"aios/registry.search","params":{"query":"org.test.native"}}`)
	ads, _ = m["result"].(map[string]any)["adapters"].([]any)
	if len(ads) != 1 {
		t.Fatalf("search of the built-in provider: %v", m)
	}
	if a := ads[0].(map[string]any); a["kind"] != nil || a["status"] != "available" {
		t.Fatalf("built-in adapter %v: want no kind (docs: kind?)", a)
	}
}

// POST /rpc ignored Content-Encoding: a client that gzips its requests
// (some HTTP libraries offer it, proxies do it) was answered -32700
// "parse error", blaming the JSON it had sent correctly. A content coding
// the server does not decode is HTTP 415 naming it (RFC 9110 §15.5.16);
// identity is accepted.
func TestRPCContentEncodingRefused(t *testing.T) {
	ts := newTestServer(t, "", true)
	body := `{"jsonrpc":"2.0","id":1,"method":"aios/registry.search","params":{"limit":1}}`
	for _, c := range []struct {
		enc    string
		status int
		want   string
	}{
		{"gzip", 415, `Content-Encoding \"gzip\"`},
		{"deflate, gzip", 415, `Content-Encoding \"deflate, gzip\"`},
		{"identity", 200, `"result"`},
		{"", 200, `"result"`},
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.url+"/rpc", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		if c.enc != "" {
			req.Header.Set("Content-Encoding", c.enc)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(b), c.want) {
			t.Errorf("Content-Encoding %q: %d %s; want %d with %s", c.enc, resp.StatusCode, b, c.status, c.want)
		}
	}
}

// Params members were matched ignoring case (encoding/json's rule), so
// {"ADAPTER_ID": …} was read as adapter_id and {"limit": 1, "Limit": 2}
// as whichever came last, while the docs refuse unknown members and JSON
// member names are case-sensitive; tools/call's {"name": "a", "NAME": "b"}
// called b. A member that differs from a known one only in case is now
// -32602 naming both.
func TestParamsMembersCaseSensitive(t *testing.T) {
	ts := newTestServer(t, "", true)
	for _, c := range []struct{ method, params, bad, want string }{
		{"aios/registry.info", `{"ADAPTER_ID":"org.test.native"}`, "ADAPTER_ID", "adapter_id"},
		{"aios/registry.search", `{"limit":1,"Limit":2}`, "Limit", "limit"},
		{"aios/registry.refresh", `{"Scope":"local"}`, "Scope", "scope"},
		{"tools/call", `{"name":"echo","NAME":"echo","arguments":{"value":1}}`, "NAME", "name"},
		{"tools/call", `{"name":"echo","Arguments":{"value":1}}`, "Arguments", "arguments"},
	} {
		line := `{"jsonrpc":"2.0","id":1,"method":"` + c.method + `","params":` + c.params + `}`
		m := rawExchange(t, ts, line)
		e, _ := m["error"].(map[string]any)
		msg := fmt.Sprint(e["message"])
		if errCode(m) != -32602 || !strings.Contains(msg, `"`+c.bad+`"`) || !strings.Contains(msg, `"`+c.want+`"`) {
			t.Errorf("%s: %v; want -32602 naming %q and %q", line, m, c.bad, c.want)
		}
	}
	// Members of arguments are the tool's: any case passes through.
	m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":{"Name":1,"name":2}}}}`)
	if m["error"] != nil {
		t.Fatalf("arguments with case-variant members: %v", m)
	}
	// An escaped member name is compared by its value.
	m = rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"aios/registry.info","params":{"adapter\u005fid":"org.test.native"}}`)
	if m["error"] != nil {
		t.Fatalf("escaped member name: %v", m)
	}
}

// A member given twice in params ({"name": "a", "name": "b"}) was read as
// the last one, silently; which the client meant is anyone's guess (RFC
// 8259 leaves it to the reader, I-JSON forbids it). It is now -32602
// naming the member.
func TestParamsDuplicateMemberRefused(t *testing.T) {
	ts := newTestServer(t, "", false)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fail","name":"echo","arguments":{"value":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"aios/registry.search","params":{"limit":1,"query":"x","limit":2}}`,
	} {
		m := rawExchange(t, ts, line)
		if e, _ := m["error"].(map[string]any); errCode(m) != -32602 || !strings.Contains(fmt.Sprint(e["message"]), "twice") {
			t.Errorf("%s: %v; want -32602 saying a member is given twice", line, m)
		}
	}
	// The same name in arguments, or in two nested objects, is no concern of the server's.
	m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":{"a":{"x":1},"b":{"x":2}}}}}`)
	if m["error"] != nil {
		t.Fatalf("nested members: %v", m)
	}
}

// aios/registry.subscribe over HTTP with an events filter answered
// events_url "/events", which streams every event: the filter the client
// gave was dropped without a word, and the answer had no events member
// (the socket's has). events_url now carries the filter (?events=…), and
// events says which are sent, as on the socket.
func TestHTTPSubscribeKeepsEventFilter(t *testing.T) {
	ts := newTestServer(t, "", true)
	for _, c := range []struct{ params, url, events string }{
		{`{"events":["removed","added"]}`, "/events?events=added,removed", "[added removed]"},
		{`{"events":["added","removed","updated"]}`, "/events", "[added removed updated]"},
		{`{}`, "/events", "[added removed updated]"},
	} {
		status, body := httpPost(t, ts.url+"/rpc", testToken, "application/json",
			`{"jsonrpc":"2.0","id":"4","method":"aios/registry.subscribe","params":`+c.params+`}`)
		var m struct {
			Result struct {
				EventsURL string   `json:"events_url"`
				Events    []string `json:"events"`
			}
		}
		if status != 200 || json.Unmarshal(body, &m) != nil || m.Result.EventsURL != c.url || fmt.Sprint(m.Result.Events) != c.events {
			t.Errorf("subscribe %s over HTTP: %d %s; want events_url %s and events %s", c.params, status, body, c.url, c.events)
		}
	}
}

// GET /events read only the first events= of the query: a client that
// sends a list as repeated parameters (Python requests' params={"events":
// ["removed", "added"]} gives events=removed&events=added) got a stream of
// removals only, and a bad value after the first was not refused. Every
// events= value counts now.
func TestEventsRepeatedQueryParameter(t *testing.T) {
	ts := newTestServer(t, "", true)
	get := func(q string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, ts.url+"/events?"+q, nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	if r := get("events=added&events=bogus"); r.StatusCode != http.StatusBadRequest {
		t.Fatalf("events=added&events=bogus: %d; want 400 naming bogus", r.StatusCode)
	} else if b, _ := io.ReadAll(r.Body); !strings.Contains(string(b), "bogus") {
		t.Fatalf("events=added&events=bogus: %s; want 400 naming bogus", b)
	}
	r := get("events=removed&events=added")
	if r.StatusCode != 200 {
		t.Fatalf("events=removed&events=added: %d", r.StatusCode)
	}
	br := bufio.NewReader(r.Body)
	if line, _ := br.ReadString('\n'); !strings.HasPrefix(line, ": subscribed") {
		t.Fatalf("stream: %q", line)
	}
	if err := ts.h.AddProvider(context.Background(), nativeProvider("org.test.more", "more-"), host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				got <- "error: " + err.Error()
				return
			}
			if strings.HasPrefix(line, "data: ") {
				got <- line
				return
			}
		}
	}()
	select {
	case line := <-got:
		if !strings.Contains(line, `"added":[{"id":"org.test.more"`) {
			t.Fatalf("stream of removed and added: %s; want the addition", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("stream of events=removed&events=added: no addition sent in 10 s")
	}
}

// POST /rpc took any charset parameter: a client that says (and sends)
// application/json; charset=utf-16 was answered -32700 "invalid character
// 'ÿ'", blaming its JSON. JSON is UTF-8 (RFC 8259 §8.1): another charset
// is HTTP 415 naming it when the body is not UTF-8 JSON; utf-8 (any
// case) and none pass (and another label on a UTF-8 body:
// TestCharsetLabelOnUTF8Body).
func TestRPCCharsetNotUTF8Refused(t *testing.T) {
	ts := newTestServer(t, "", true)
	body := `{"jsonrpc":"2.0","id":1,"method":"aios/registry.search","params":{"limit":1}}`
	utf16 := "\xff\xfe" + strings.Join(strings.Split(body, ""), "\x00") + "\x00"
	latin1 := strings.Replace(body, `"limit":1`, `"query":"caf\xe9"`, 1)
	for _, c := range []struct {
		ct, body string
		status   int
		want     string
	}{
		{"application/json; charset=utf-16", utf16, 415, "utf-16"},
		{"application/json; charset=ISO-8859-1", latin1, 415, "ISO-8859-1"},
		{"application/json; charset=UTF-8", body, 200, `"result"`},
		{"application/json;charset=\"utf-8\"", body, 200, `"result"`},
		{"application/json", body, 200, `"result"`},
	} {
		status, b := httpPost(t, ts.url+"/rpc", testToken, c.ct, c.body)
		if status != c.status || !strings.Contains(string(b), c.want) {
			t.Errorf("Content-Type %q: %d %s; want %d with %s", c.ct, status, b, c.status, c.want)
		}
	}
}

// GET /events ignored query parameters it does not know: ?event=added (a
// typo of events) streamed every event, the filter dropped without a
// word, as subscribe's params refuse an unknown member. It is now HTTP 400
// naming the parameter and the one it takes.
func TestEventsUnknownQueryParameter(t *testing.T) {
	ts := newTestServer(t, "", true)
	req, _ := http.NewRequest(http.MethodGet, ts.url+"/events?event=added", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("GET /events?event=added: %d; want 400", resp.StatusCode)
	}
	if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), `\"event\"`) || !strings.Contains(string(b), "events") {
		t.Fatalf("GET /events?event=added: %s; want the parameter named", b)
	}
}

// The -32600 answers said what a member must be, not what the request
// had: `"jsonrpc" must be "2.0"` for a request without the member and for
// one saying "1.0" alike, `method must be a non-empty string` for
// "method": 7. They now name what was given (or that it is missing).
func TestInvalidRequestSaysWhatWasGiven(t *testing.T) {
	ts := newTestServer(t, "", false)
	for _, c := range []struct{ line, want string }{
		{`{"id":1,"method":"aios/registry.search"}`, `"jsonrpc" must be "2.0" (it is missing)`},
		{`{"jsonrpc":"1.0","id":1,"method":"aios/registry.search"}`, `"jsonrpc" must be "2.0" (got "1.0")`},
		{`{"jsonrpc":2.0,"id":1,"method":"aios/registry.search"}`, `"jsonrpc" must be "2.0" (got the number 2.0)`},
		{`{"jsonrpc":"2.0","id":1,"method":7}`, `method must be a non-empty string (got the number 7)`},
		{`{"jsonrpc":"2.0","id":1}`, `method must be a non-empty string (it is missing)`},
		{`{"jsonrpc":"2.0","id":1,"method":""}`, `method must be a non-empty string (got "")`},
		{`{"jsonrpc":"2.0","id":true,"method":"x"}`, `id must be a string, a number or null (got true)`},
		{`{"jsonrpc":"2.0","id":1,"method":"x","params":"all"}`, `params must be an object or an array (got "all")`},
	} {
		m := rawExchange(t, ts, c.line)
		e, _ := m["error"].(map[string]any)
		if errCode(m) != -32600 || !strings.Contains(fmt.Sprint(e["message"]), c.want) {
			t.Errorf("%s: %v; want -32600 saying %s", c.line, m, c.want)
		}
	}
}

// A request object with a member twice ("id": 1, "id": 2) was read as the
// last one: answered with id 2, so a client waiting for id 1 waited for
// ever; and "ID": 1 made the request a notification, answered by nothing.
// Both are now -32600 naming the member.
func TestRequestMembersTwiceOrMiscased(t *testing.T) {
	ts := newTestServer(t, "", false)
	for _, c := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"aios/registry.search"}`, `member "id" is given twice`},
		{`{"jsonrpc":"2.0","id":1,"method":"nope","method":"aios/registry.search"}`, `member "method" is given twice`},
		{`{"jsonrpc":"2.0","ID":1,"method":"aios/registry.search"}`, `"ID"`},
	} {
		m := rawExchange(t, ts, c.line)
		e, _ := m["error"].(map[string]any)
		if errCode(m) != -32600 || !strings.Contains(fmt.Sprint(e["message"]), c.want) {
			t.Errorf("%s: %v; want -32600 saying %s", c.line, m, c.want)
		}
	}
	// Other members pass, as before.
	m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"aios/registry.search","params":{"limit":1},"extra":{"id":2}}`)
	if m["error"] != nil || m["id"] != 1.0 {
		t.Fatalf("request with an extra member: %v", m)
	}
}
