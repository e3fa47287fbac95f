package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestErrorNotAnObjectKeepsSession: a server answering one call with an
// error that is no JSON-RPC error object ("error": "it broke") failed the
// go-sdk's decoding of the whole message, which ended the connection: the
// call answered ProviderError quoting the go-sdk's internals ("unmarshaling
// jsonrpc message: json: cannot unmarshal … jsonrpc2.wireDecode.error of
// type jsonrpc2.WireError"), the running server was restarted and every
// other call in flight on it failed (found by p150). Now that call alone
// fails, ProviderError saying what the server sent, and the session goes
// on.
func TestErrorNotAnObjectKeepsSession(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"p": p150Config(t)})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	if v, err := call(t, p, "mcp-p-echo", nil, 10*time.Second); err != nil || !strings.Contains(formatValue(v), "echo 1") {
		t.Fatalf("echo: %s %v", formatValue(v), err)
	}
	_, err = call(t, p, "mcp-p-strerror", nil, 10*time.Second)
	t.Logf("strerror: %v", err)
	if msg := abi.AsToolError(err, "").Message; abi.CodeOf(err) != abi.ProviderError || !strings.Contains(msg, "mcp-p-strerror") ||
		!strings.Contains(msg, "not a JSON-RPC error object") || !strings.Contains(msg, "it broke") || strings.Contains(msg, "jsonrpc2") {
		t.Errorf("an error that is a string answered %v, want ProviderError naming the tool and saying what the server sent", err)
	}
	if v, err := call(t, p, "mcp-p-echo", nil, 10*time.Second); err != nil || !strings.Contains(formatValue(v), "echo 3") {
		t.Fatalf("the call after answered %s %v, want the same server's third answer (no restart)", formatValue(v), err)
	}
}
