package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// An integer member given as an integral float ("limit": 10.0, 1e2, as a
// Python client serialising a float sends) was refused with "want integer,
// got number", although JSON Schema (and the project's schema package)
// count an integral number as an integer. It is taken as that integer; a
// number with a fraction is still refused, saying so.
func TestIntegralFloatParams(t *testing.T) {
	type deep struct {
		N int64 `json:"n"`
	}
	type params struct {
		Limit int             `json:"limit"`
		Deep  deep            `json:"deep"`
		Args  json.RawMessage `json:"args"`
		IDs   []int           `json:"ids"`
		Caps  map[string]int  `json:"caps"`
	}
	for _, tc := range []struct {
		in    string
		limit int
		n     int64
	}{
		{`{"limit":10.0}`, 10, 0},
		{`{"limit":1e2}`, 100, 0},
		{`{"limit":1.5e1, "deep":{"n":-3.0}}`, 15, -3},
		{`{"limit":-0.0}`, 0, 0},
	} {
		var p params
		if e := decodeParams(json.RawMessage(tc.in), &p); e != nil {
			t.Errorf("%s: %v", tc.in, e)
			continue
		}
		if p.Limit != tc.limit || p.Deep.N != tc.n {
			t.Errorf("%s: got limit %d n %d, want %d %d", tc.in, p.Limit, p.Deep.N, tc.limit, tc.n)
		}
	}
	// Other members are passed as they came (a tool's arguments keep 10.0).
	var p params
	if e := decodeParams(json.RawMessage(`{"limit":2.0,"args":{"x":10.0}}`), &p); e != nil || string(p.Args) != `{"x":10.0}` {
		t.Errorf("args %s, error %v", p.Args, e)
	}
	var q params
	if e := decodeParams(json.RawMessage(`{"ids":[1, 2.0, 3e0],"caps":{"a":4.0,"b":5}}`), &q); e != nil || len(q.IDs) != 3 || q.IDs[2] != 3 || q.Caps["a"] != 4 {
		t.Errorf("ids %v caps %v, error %v", q.IDs, q.Caps, e)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"ids":[1, 2.5]}`, `ids: want integer, got 2.5, which is not a whole number`},
		{`{"caps":{"a":0.5}}`, `caps: want integer, got 0.5, which is not a whole number`},
		{`{"ids":["x"]}`, `ids: want integer, got string`},
		{`{"limit":10.5}`, `limit: want integer, got 10.5, which is not a whole number`},
		{`{"deep":{"n":1e-3}}`, `deep.n: want integer, got 1e-3, which is not a whole number`},
		{`{"limit":1e300}`, `limit: want integer, got 1e300`},
		{`{"limit":"10"}`, `limit: want integer, got string`},
	} {
		var p params
		e := decodeParams(json.RawMessage(tc.in), &p)
		if e == nil {
			t.Errorf("%s accepted (limit %d)", tc.in, p.Limit)
			continue
		}
		if !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: %q, want %q", tc.in, e.Message, tc.want)
		}
	}
}

// A JSON-RPC response object sent to the server (a client echoing one, or
// a peer that takes the socket for two-way) was answered -32600 with that
// response's id, which the client may take for the answer to its own
// request of that id. The server sends no requests, so a response answers
// nothing of its: it is refused as one, with id null (JSON-RPC 2.0 §5: an
// invalid request's id is null).
func TestResponseObjectNotAnsweredWithItsID(t *testing.T) {
	ts := newTestServer(t, "", false)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{"ok":true}}`,
		`{"jsonrpc":"2.0","id":"a","error":{"code":-32000,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":7,"result":null}`,
	} {
		var m map[string]any
		if err := json.Unmarshal(rawLine(t, ts, line), &m); err != nil {
			t.Fatal(err)
		}
		id, has := m["id"]
		if !has || id != nil || errCode(m) != -32600 || !strings.Contains(fmt.Sprint(m["error"]), "response") {
			t.Errorf("%s: reply %v; want -32600 with id null saying a response is not taken", line, m)
		}
	}
}

// GET /rpc (405) and a path the server does not serve (404) were answered
// by net/http in text/plain ("Method Not Allowed", "404 page not found"),
// where every other answer of the server, errors included, is a JSON-RPC
// error object. They are JSON now, saying what is served, the status and
// the Allow header unchanged.
func TestHTTPStatusAnswersAreJSON(t *testing.T) {
	ts := newTestServer(t, "", true)
	for _, tc := range []struct {
		method, path string
		status       int
		allow, want  string
	}{
		{"GET", "/rpc", http.StatusMethodNotAllowed, "POST", "allowed: POST"},
		{"PUT", "/health", http.StatusMethodNotAllowed, "GET, HEAD", "allowed: GET, HEAD"},
		{"GET", "/nope", http.StatusNotFound, "", "POST /rpc"},
	} {
		req, _ := http.NewRequest(tc.method, ts.url+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var m map[string]any
		if resp.StatusCode != tc.status || resp.Header.Get("Allow") != tc.allow ||
			resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &m) != nil ||
			!strings.Contains(fmt.Sprint(m["error"]), tc.want) {
			t.Errorf("%s %s: %d %q Allow %q: %s; want %d JSON saying %q", tc.method, tc.path, resp.StatusCode,
				resp.Header.Get("Content-Type"), resp.Header.Get("Allow"), body, tc.status, tc.want)
		}
	}
}
