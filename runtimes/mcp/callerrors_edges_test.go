package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// With $AIOS_MCP_P122 set the test binary is a stdio MCP server whose
// tools misbehave in one way each: "hang" never answers, "rpcempty"
// answers a JSON-RPC error without a message, "jsonlog" writes a JSON log
// line to stdout before its answer. In mode "hanglist" it answers its
// first tools/list only; in mode "badtools" its tools/list also has
// entries the go-sdk cannot decode.
func init() {
	if mode := os.Getenv("AIOS_MCP_P122"); mode != "" {
		os.Exit(runP122Server(mode))
	}
}

func p122Config(t testing.TB, mode string) ServerConfig {
	sc := fakeConfig(t, "unused")
	delete(sc.Env, "AIOS_MCP_FAKE")
	sc.Env["AIOS_MCP_P122"] = mode
	return sc
}

func runP122Server(mode string) int {
	lists := 0
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		b, _ := json.Marshal(v)
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	for in.Scan() {
		var m fakeMsg
		if json.Unmarshal(in.Bytes(), &m) != nil || len(m.ID) == 0 || m.Method == "" {
			continue
		}
		switch m.Method {
		case "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"protocolVersion": "2025-06-18",
				"capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "p122", "version": "1"}}})
		case "tools/list":
			if lists++; mode == "hanglist" && lists > 1 {
				continue // answers its first listing only
			}
			var bad []any
			if mode == "badtools" {
				deep := map[string]any{"type": "object"}
				for range 1200 {
					deep = map[string]any{"type": "object", "properties": map[string]any{"a": deep}}
				}
				bad = []any{map[string]any{"name": 5, "inputSchema": obj(`{"type":"object"}`)},
					map[string]any{"name": "deep", "inputSchema": deep},
					map[string]any{"name": "annotated", "inputSchema": obj(`{"type":"object"}`), "annotations": "read-only"}}
			}
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"tools": append(bad,
				map[string]any{"name": "hang", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "rpcempty", "inputSchema": obj(`{"type":"object"}`)},
				map[string]any{"name": "jsonlog", "inputSchema": obj(`{"type":"object"}`)},
			)}})
		case "tools/call":
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if p.Name == "jsonlog" { // a structured log line on stdout, then the answer
				send(map[string]any{"level": "info", "msg": "handling the call"})
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"content": []any{}}})
			}
			if p.Name == "rpcempty" {
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32000, "message": ""}})
			}
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no such method"}})
		}
	}
	return 0
}

// TestTimeoutNamesServerAndTool: a call of an MCP tool whose server
// does not answer before the call's deadline, or whose caller cancels it,
// failed with the bare "context deadline exceeded" / "context canceled"
// (the host's pipeline passes a Timeout on as it is), naming neither the
// server nor the tool. The error names both and says what ended the call.
func TestTimeoutNamesServerAndTool(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"slowpoke": p122Config(t, "plain")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.slowpoke")
	_, err = call(t, p, "mcp-slowpoke-hang", nil, 300*time.Millisecond)
	if abi.CodeOf(err) != abi.Timeout {
		t.Fatalf("deadline: want Timeout, got %v", err)
	}
	for _, want := range []string{"mcp server slowpoke", "mcp-slowpoke-hang", "deadline"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("deadline: %q does not say %q", err, want)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	c := &abi.ToolCall{ID: "t", Tool: "mcp-slowpoke-hang", Deadline: time.Now().Add(time.Minute)}
	_, err = p.Call(ctx, c, nil)
	if abi.CodeOf(err) != abi.Cancelled {
		t.Fatalf("cancel: want Cancelled, got %v", err)
	}
	for _, want := range []string{"mcp server slowpoke", "mcp-slowpoke-hang", "cancel"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("cancel: %q does not say %q", err, want)
		}
	}
}

// TestEmptyRPCErrorSaysCode: a server answering a call with a JSON-RPC
// error whose message is empty failed it with "mcp server s:
// mcp-s-rpcempty: " and nothing after: not what went wrong, nor even
// that the server answered an error. The error gives the JSON-RPC code and
// says the server gave no message.
func TestEmptyRPCErrorSaysCode(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"s": p122Config(t, "plain")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = call(t, rec.provider("org.aios.mcp.s"), "mcp-s-rpcempty", nil, 10*time.Second)
	if abi.CodeOf(err) != abi.ProviderError {
		t.Fatalf("want ProviderError, got %v", err)
	}
	for _, want := range []string{"mcp server s", "mcp-s-rpcempty", "-32000", "no message"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

// TestJSONLogOnStdoutSaysSo: a stdio server writing a JSON log line
// ({"level":"info","msg":…}) to stdout mid-session failed the call with
// the go-sdk's `invalid message version tag ""; expected "2.0"`, and then
// with an error quoting the line and saying that the server's logs
// belong on stderr, the connection ended either way. Now the line is
// skipped and logged so, and the call is answered.
func TestJSONLogOnStdoutSaysSo(t *testing.T) {
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"s": p122Config(t, "plain")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err = call(t, rec.provider("org.aios.mcp.s"), "mcp-s-jsonlog", nil, 10*time.Second); err != nil {
		t.Fatalf("a call during which the server wrote a JSON log line to stdout: %v", err)
	}
	l := logs.String()
	for _, want := range []string{"mcp server stdout line skipped", "server=s", "not JSON-RPC", `handling the call`, "stderr"} {
		if !strings.Contains(l, want) {
			t.Errorf("the log does not say %q:\n%s", want, l)
		}
	}
}
