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

// TestAnswerWithoutResultKeepsSession: a server that answers one
// tools/call with neither a result nor an error ({"jsonrpc":"2.0","id":7})
// broke the protocol in that answer alone, but the go-sdk's decoding of
// the missing result said only EOF, which the bridge took for the
// connection's end: the call answered ProviderCrashed "died during …:
// EOF" and the bridge closed the session and restarted a server that was
// running, failing any other call in flight on it (found by p150). Now
// such an answer is that call's ProviderError, naming the server, the
// tool and what the server did, and the session goes on.
func TestAnswerWithoutResultKeepsSession(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"p": p150Config(t)})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	if v, err := call(t, p, "mcp-p-echo", nil, 10*time.Second); err != nil || !strings.Contains(formatValue(v), "echo 1") {
		t.Fatalf("echo: %s %v", formatValue(v), err)
	}
	_, err = call(t, p, "mcp-p-noanswer", nil, 10*time.Second)
	t.Logf("noanswer: %v", err)
	if abi.CodeOf(err) != abi.ProviderError {
		t.Errorf("an answer without result or error is %v, want ProviderError", err)
	}
	if msg := abi.AsToolError(err, "").Message; !strings.Contains(msg, "mcp server p") || !strings.Contains(msg, "mcp-p-noanswer") ||
		!strings.Contains(msg, "neither a result nor an error") {
		t.Errorf("the error does not name the server, the tool and what it did: %s", msg)
	}
	// The same process serves the next call (its third).
	if v, err := call(t, p, "mcp-p-echo", nil, 10*time.Second); err != nil || !strings.Contains(formatValue(v), "echo 3") {
		t.Fatalf("the call after answered %s %v, want the same server's third answer (no restart)", formatValue(v), err)
	}
}

// TestHTTPAnswerWithoutResultKeepsSession: the same over streamable
// HTTP, where the bridge dropped the session and reconnected
// (Unavailable "closed the connection during …: EOF").
func TestHTTPAnswerWithoutResultKeepsSession(t *testing.T) {
	var inits atomic.Int32
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
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s1")
		var result any
		switch m.Method {
		case "initialize":
			inits.Add(1)
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "h", "version": "1"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "noanswer", "inputSchema": obj(`{"type":"object"}`)}}}
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s}`, m.ID)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"h": {URL: srv.URL + "/mcp", ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.h")
	for range 2 {
		_, err = call(t, p, "mcp-h-noanswer", nil, 10*time.Second)
		t.Logf("noanswer: %v", err)
		if abi.CodeOf(err) != abi.ProviderError || !strings.Contains(err.Error(), "neither a result nor an error") {
			t.Errorf("an answer without result or error is %v, want ProviderError saying so", err)
		}
	}
	if n := inits.Load(); n != 1 {
		t.Errorf("the bridge initialized %d sessions, want 1 (no reconnect)", n)
	}
}
