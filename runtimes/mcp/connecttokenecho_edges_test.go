package mcp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A URL server (or a proxy before it) that refuses initialize quoting the
// bridge's bearer token ("invalid token …") had the token written into the
// host's log ("mcp server unavailable; reconnecting" err=…), into the
// error Start returns and into Status's LastError, where a failed call's
// error had it taken out (TestBridgeTokenNotInErrors). Those say
// "[redacted: …]" now too.
func TestBridgeTokenNotInConnectErrors(t *testing.T) {
	const tok = "c0nnect-t0ken-echoed"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &req)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		msg, _ := json.Marshal("upstream refused " + r.Header.Get("Authorization"))
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32001,"message":` + string(msg) + `}}`))
	}))
	t.Cleanup(srv.Close)
	t.Setenv("PROBE_CONNECT_TOKEN", tok)
	b, _, logs, err := startBridge(t, map[string]ServerConfig{"echoer": {URL: srv.URL + "/mcp", TokenEnv: "PROBE_CONNECT_TOKEN",
		ConnectTimeout: 5 * time.Second}})
	if err != nil && strings.Contains(err.Error(), tok) {
		t.Errorf("Start: the bridge's token is in its error: %v", err)
	}
	sts := b.Status()
	if len(sts) != 1 || sts[0].LastError == "" {
		t.Fatalf("status %+v: want the server's failure", sts)
	}
	if strings.Contains(sts[0].LastError, tok) || !strings.Contains(sts[0].LastError, "[redacted: mcp.servers.echoer token]") {
		t.Errorf("LastError %q: want the token redacted", sts[0].LastError)
	}
	if l := logs.String(); strings.Contains(l, tok) {
		t.Errorf("the bridge's token is in the host's log:\n%s", l)
	}
}
