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

// TestVanishedPromptIsNotFound: a prompt the server listed but no longer
// has is answered, as a vanished tool is, with -32602 ("unknown prompt
// \"review\"": the go-sdk's words). A vanished tool is NotFound and the
// server listed again (TestVanishedToolIsNotFound); the prompt's tool
// answered InvalidParams, blaming the caller's params, and stayed listed
// (found by p180). It is NotFound too, and the server is listed again.
func TestVanishedPromptIsNotFound(t *testing.T) {
	var lists atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m fakeMsg
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Mcp-Session-Id", "s1")
		w.Header().Set("Content-Type", "application/json")
		answer := func(result string) { fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result) }
		switch m.Method {
		case "initialize":
			answer(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"prompts":{}},"serverInfo":{"name":"h","version":"1"}}`)
		case "tools/list":
			answer(`{"tools":[]}`)
		case "prompts/list":
			lists.Add(1)
			answer(`{"prompts":[{"name":"review"}]}`)
		case "prompts/get":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unknown prompt \"review\""}}`, m.ID)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID)
		}
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"h": {URL: srv.URL + "/mcp", ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	before := lists.Load()
	_, err = call(t, rec.provider("org.aios.mcp.h"), "mcp-h-prompt-review", map[string]any{}, 10*time.Second)
	t.Logf("review: %v", err)
	if abi.CodeOf(err) != abi.NotFound || !strings.Contains(err.Error(), "mcp-h-prompt-review") {
		t.Errorf("a prompt the server no longer has: %v; want NotFound naming the tool", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for lists.Load() == before {
		if time.Now().After(deadline) {
			t.Fatal("the server was not listed again")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
