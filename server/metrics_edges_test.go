package server

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMetricsMethods: GET /metrics with an agent's token, from a
// peer that needs one, follows each form of agents.NAME.methods; a
// JSON-RPC request for the method "metrics" is MethodNotFound (it is no
// JSON-RPC method), whatever the list.
func TestMetricsMethods(t *testing.T) {
	ts := newTestServer(t, "", false)
	for _, tc := range []struct {
		methods []string
		want    int
	}{
		{nil, 200},
		{[]string{"*"}, 200},
		{[]string{"m*"}, 200},
		{[]string{"metrics"}, 200},
		{[]string{"metrics*"}, 200},
		{[]string{"tools/*"}, 403},
		{[]string{"aios/*", "initialize"}, 403},
		{[]string{}, 403},
	} {
		a := ts.s.hcfg.Agents["lister"]
		a.Methods = tc.methods
		ts.s.hcfg.Agents["lister"] = a
		r := httptest.NewRequest("GET", "/metrics", nil)
		r.RemoteAddr = "192.0.2.7:5000"
		r.Header.Set("Authorization", "Bearer "+listerToken)
		w := httptest.NewRecorder()
		ts.s.Handler().ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("methods %q: GET /metrics HTTP %d, want %d: %.200s", tc.methods, w.Code, tc.want, w.Body.String())
		}
		if w.Code == 403 && !strings.Contains(w.Body.String(), `\"metrics\" is not in agents.lister.methods`) {
			t.Errorf("methods %q: the 403 does not say why: %s", tc.methods, w.Body.String())
		}

		r = httptest.NewRequest("POST", "/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"metrics"}`))
		r.RemoteAddr = "192.0.2.7:5000"
		r.Header.Set("Authorization", "Bearer "+listerToken)
		r.Header.Set("Content-Type", "application/json")
		w = httptest.NewRecorder()
		ts.s.Handler().ServeHTTP(w, r)
		if !strings.Contains(w.Body.String(), "-32601") || !strings.Contains(w.Body.String(), `method \"metrics\" not found`) {
			t.Errorf("methods %q: JSON-RPC \"metrics\": HTTP %d %s", tc.methods, w.Code, w.Body.String())
		}
	}
}
