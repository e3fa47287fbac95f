package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestHTTPAnswerNotJSONKeepsSession: a URL server (or a proxy before it)
// answering one tools/call with HTTP 200 and a body that is no JSON-RPC
// answer (text/html: an error page) ended the session: the go-sdk failed
// the request's write without marking it transient, the call answered
// Unavailable "mcp server h closed the connection during mcp-h-html; the
// bridge is reconnecting: … unsupported content type \"text/html\"" (or
// ProviderError with that error, and the next call, sent on the dead
// session, the Unavailable), and the bridge reconnected (found by p150). Now that call alone
// fails, ProviderError naming the content type and quoting the body's
// start, and the session goes on.
func TestHTTPAnswerNotJSONKeepsSession(t *testing.T) {
	p, inits := notJSONRPCServer(t)
	_, err := call(t, p, "mcp-h-html", nil, 10*time.Second)
	t.Logf("html: %v", err)
	if msg := abi.AsToolError(err, "").Message; abi.CodeOf(err) != abi.ProviderError || !strings.Contains(msg, "mcp-h-html") ||
		!strings.Contains(msg, `"text/html"`) || !strings.Contains(msg, "502 upstream gone") {
		t.Errorf("an HTML answer is %v, want ProviderError naming the tool, the content type and the body's start", err)
	}
	v, err := call(t, p, "mcp-h-echo", nil, 10*time.Second)
	if err != nil || !strings.Contains(formatValue(v), "echoed") {
		t.Errorf("the next call answered %s %v", formatValue(v), err)
	}
	if n := inits.Load(); n != 1 {
		t.Errorf("the bridge initialized %d sessions, want 1 (no reconnect)", n)
	}
}

// TestHTTPBodyNotJSONRPCKeepsSession: the same of a 200 application/json
// answer whose body is no JSON-RPC message (text, or a web framework's
// {"detail": …}): the go-sdk failed to decode it and ended the session,
// the call answering `failed to decode response: …` and the next one,
// sent on the dead session, Unavailable with that error (found by p150).
// Now that call alone fails, ProviderError quoting the body's start.
func TestHTTPBodyNotJSONRPCKeepsSession(t *testing.T) {
	p, inits := notJSONRPCServer(t)
	for _, tc := range []struct{ tool, quote string }{{"notjson", "Internal Server Error"}, {"rest", "worker crashed"}} {
		_, err := call(t, p, "mcp-h-"+tc.tool, nil, 10*time.Second)
		t.Logf("%s: %v", tc.tool, err)
		if msg := abi.AsToolError(err, "").Message; abi.CodeOf(err) != abi.ProviderError || !strings.Contains(msg, "mcp-h-"+tc.tool) ||
			!strings.Contains(msg, tc.quote) || !strings.Contains(msg, "not a JSON-RPC") {
			t.Errorf("%s: %v, want ProviderError naming the tool and quoting the body", tc.tool, err)
		}
		v, err := call(t, p, "mcp-h-echo", nil, 10*time.Second)
		if err != nil || !strings.Contains(formatValue(v), "echoed") {
			t.Errorf("the call after %s answered %s %v", tc.tool, formatValue(v), err)
		}
	}
	if n := inits.Load(); n != 1 {
		t.Errorf("the bridge initialized %d sessions, want 1 (no reconnect)", n)
	}
}

// TestHTTPSSEEventNotJSONRPCKeepsSession: the same of an event of a
// call's SSE stream whose data is no JSON-RPC message: the go-sdk failed
// to decode it ("failed to decode event") and ended the session (found
// by p150). Now that call alone fails, ProviderError quoting the data.
func TestHTTPSSEEventNotJSONRPCKeepsSession(t *testing.T) {
	p, inits := notJSONRPCServer(t)
	_, err := call(t, p, "mcp-h-badsse", nil, 10*time.Second)
	t.Logf("badsse: %v", err)
	if msg := abi.AsToolError(err, "").Message; abi.CodeOf(err) != abi.ProviderError || !strings.Contains(msg, "mcp-h-badsse") ||
		!strings.Contains(msg, "upstream timed out") || !strings.Contains(msg, "not a JSON-RPC") {
		t.Errorf("badsse: %v, want ProviderError naming the tool and quoting the event", err)
	}
	v, err := call(t, p, "mcp-h-echo", nil, 10*time.Second)
	if err != nil || !strings.Contains(formatValue(v), "echoed") {
		t.Errorf("the call after answered %s %v", formatValue(v), err)
	}
	if n := inits.Load(); n != 1 {
		t.Errorf("the bridge initialized %d sessions, want 1 (no reconnect)", n)
	}
}

// notJSONRPCServer is a URL server whose tools html, notjson, rest and
// badsse answer 200 with bodies that are no JSON-RPC answer, and echo answers
// "echoed"; inits counts its sessions.
func notJSONRPCServer(t *testing.T) (abi.Provider, *atomic.Int32) {
	inits := &atomic.Int32{}
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
		var result any
		switch m.Method {
		case "initialize":
			inits.Add(1)
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "h", "version": "1"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "html", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "echo", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "notjson", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "rest", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "badsse", "inputSchema": obj(`{"type":"object"}`)}}}
		default:
			var p struct{ Name string }
			_ = json.Unmarshal(m.Params, &p)
			switch p.Name {
			case "notjson": // said to be JSON, and text
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, "Internal Server Error")
				return
			case "badsse": // an event of the call's stream that is no JSON-RPC message
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "event: message\ndata: upstream timed out\n\n")
				return
			case "rest": // JSON, and not JSON-RPC
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"detail":"worker crashed"}`)
				return
			}
			if p.Name == "html" {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprint(w, "<html><body>502 upstream gone</body></html>")
				return
			}
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "echoed"}}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"h": {URL: srv.URL + "/mcp", ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return rec.provider("org.aios.mcp.h"), inits
}
