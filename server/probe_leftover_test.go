package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// An integer member given as an integral float ("limit": 10.0, 1e2, as a
// Python client serialising a float sends) was refused with "want integer,
// got number", although JSON Schema (and the project's schema package)
// count an integral number as an integer. It is taken as that integer; a
// number with a fraction is still refused, saying so.
func TestProbeIntegralFloatParams(t *testing.T) {
	type deep struct {
		N int64 `json:"n"`
	}
	type params struct {
		Limit int             `json:"limit"`
		Deep  deep            `json:"deep"`
		Args  json.RawMessage `json:"args"`
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
	for _, tc := range []struct{ in, want string }{
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
