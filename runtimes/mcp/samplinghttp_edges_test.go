package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// samplingHTTPServer is a URL server whose tool "sample" sends, on its
// call's SSE stream, a sampling/createMessage request with the call's
// arguments as its params, waits for the bridge's answer and ends the
// call with that answer's text.
func samplingHTTPServer(t *testing.T) string {
	answers := make(chan json.RawMessage, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m fakeMsg
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted) // notifications
			return
		}
		w.Header().Set("Mcp-Session-Id", "s1")
		if m.Method == "" { // the bridge's answer to the sampling request
			answers <- append(m.Result, m.Error...)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		msg := map[string]any{"jsonrpc": "2.0", "id": m.ID}
		switch m.Method {
		case "initialize":
			msg["result"] = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "h", "version": "1"}}
		case "tools/list":
			msg["result"] = map[string]any{"tools": []any{map[string]any{"name": "sample", "inputSchema": obj(`{"type":"object"}`)}}}
		case "tools/call":
			var p struct {
				Arguments json.RawMessage `json:"arguments"`
			}
			_ = json.Unmarshal(m.Params, &p)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"samp-1\",\"method\":\"sampling/createMessage\",\"params\":%s}\n\n", p.Arguments)
			w.(http.Flusher).Flush()
			var got json.RawMessage
			select {
			case got = <-answers:
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Second):
				got = json.RawMessage(`"no answer"`)
			}
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
				"content": []any{map[string]any{"type": "text", "text": "sampled: " + string(got)}}}})
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
			return
		default:
			msg["error"] = map[string]any{"code": -32601, "message": "no " + m.Method}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(msg)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// TestHTTPSamplingTemperatureZero: a URL server's sampling request asking
// for temperature 0 was sampled at the backend's default temperature (the
// go-sdk decodes 0 as not given, and the bridge's mark of a 0 sent as
// such was set for stdio servers only). It is passed on as 0, as a stdio
// server's is; one not sent is still none.
func TestHTTPSamplingTemperatureZero(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"h": {URL: samplingHTTPServer(t), Sampling: true, ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.h")
	hi := []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "say hi"}}}
	for _, tc := range []struct {
		temp any // nil: not sent
		want string
	}{{0, "0"}, {0.5, "0.5"}, {nil, "none"}} {
		params := map[string]any{"maxTokens": 10, "messages": hi}
		if tc.temp != nil {
			params["temperature"] = tc.temp
		}
		env := &samplingEnv{allow: true}
		c := &abi.ToolCall{ID: "t", Tool: "mcp-h-sample", Params: params, Deadline: time.Now().Add(30 * time.Second)}
		v, err := p.Call(context.Background(), c, env)
		text := fmt.Sprint(v, err)
		temp := "none"
		if env.got.Temperature != nil {
			temp = fmt.Sprint(*env.got.Temperature)
		}
		if !strings.Contains(text, "hi there") || temp != tc.want {
			t.Errorf("temperature %v: %s; the backend was asked temperature %s, want %s", tc.temp, text, temp, tc.want)
		}
	}
}
