package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// The stdio server of these probes (p180): with AIOS_MCP_P180 set this
// test binary serves the tools "echo" (answers "echo <n> pid <pid>", n
// counting the process's calls) and "stray", which first writes the line
// of its argument "line" to stdout as it is, then answers as echo does.
// With AIOS_MCP_P180_BOM set its stdout starts with a UTF-8 byte order
// mark.
func init() {
	if os.Getenv("AIOS_MCP_P180") != "" {
		os.Exit(runP180Server())
	}
}

func p180Config(t testing.TB) ServerConfig {
	sc := fakeConfig(t, "unused")
	delete(sc.Env, "AIOS_MCP_FAKE")
	sc.Env["AIOS_MCP_P180"] = "1"
	return sc
}

func runP180Server() int {
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	if os.Getenv("AIOS_MCP_P180_BOM") != "" {
		out.WriteString("\uFEFF") // as .NET's Encoding.UTF8 starts a stream
	}
	write := func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
	}
	send := func(v any) {
		b, _ := json.Marshal(v)
		write(b)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	calls := 0
	for in.Scan() {
		var m fakeMsg
		if err := json.Unmarshal(in.Bytes(), &m); err != nil || len(m.ID) == 0 || m.Method == "" {
			continue
		}
		switch m.Method {
		case "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"protocolVersion": "2025-06-18",
				"capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "p180", "version": "1"}}})
		case "tools/list":
			var ts []any
			for _, n := range []string{"echo", "stray", "tail"} {
				ts = append(ts, map[string]any{"name": n, "inputSchema": obj(`{"type":"object"}`)})
			}
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"tools": ts}})
		case "tools/call":
			var p struct {
				Name string `json:"name"`
				Args struct {
					Line string `json:"line"`
				} `json:"arguments"`
			}
			_ = json.Unmarshal(m.Params, &p)
			calls++
			if p.Name == "stray" {
				write([]byte(p.Args.Line))
			}
			answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
				"content": []any{map[string]any{"type": "text", "text": "echo " + strconv.Itoa(calls) + " pid " + strconv.Itoa(os.Getpid())}}}})
			if p.Name == "tail" { // the answer, then the line's text after it
				answer = append(answer, p.Args.Line...)
			}
			write(answer)
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no " + m.Method}})
		}
	}
	return 0
}

// TestStdioAnswerWithoutIDKeepsSession: JSON-RPC answers a message the
// server could not read with an error whose id is null
// ({"jsonrpc":"2.0","id":null,"error":{"code":-32700,…}}). The go-sdk
// takes any answer without an id for an invalid message and ends the
// connection: every call in flight answered ProviderError "invalid
// request", as if the server had refused it, and the server was
// restarted (found by p180). Now such an answer is logged and dropped,
// as an answer to no request is, and the session goes on.
func TestStdioAnswerWithoutIDKeepsSession(t *testing.T) {
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"p": p180Config(t)})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	v, err := call(t, p, "mcp-p-echo", nil, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, pid, _ := strings.Cut(formatValue(v), " pid ")
	pid, _, _ = strings.Cut(pid, `"`)
	for i, line := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the frobnicated line"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}`,
		`{"jsonrpc":"2.0","result":{}}`,
	} {
		v, err := call(t, p, "mcp-p-stray", map[string]any{"line": line}, 10*time.Second)
		if err != nil {
			t.Fatalf("a call during which the server wrote %s: %v", line, err)
		}
		if got, want := formatValue(v), fmt.Sprintf("echo %d pid %s", i+2, pid); !strings.Contains(got, want) {
			t.Fatalf("after %s the call answered %s, want %q (the same process: no restart)", line, got, want)
		}
	}
	if l := logs.String(); !strings.Contains(l, "Parse error: the frobnicated line") || !strings.Contains(l, "without its id") {
		t.Errorf("the log does not say what was dropped:\n%s", l)
	}
}

// TestHTTPAnswerWithoutIDIsTheRequests: over streamable HTTP the answer
// to a POST answers its request, so an error with a null id there is
// that request's error (JSON-RPC: the server could not tell its id). The
// go-sdk failed the call with "failed to decode response: invalid
// request", without the server's message, and ended the session: the
// next call answered Unavailable "closed the connection" and the bridge
// reconnected (found by p180). Now the call answers the server's error,
// and the session goes on; a result without an id is that call's
// ProviderError saying so.
func TestHTTPAnswerWithoutIDIsTheRequests(t *testing.T) {
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprintf("sse=%v", sse), func(t *testing.T) {
			var inits atomic.Int32
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
				answer := func(b string) {
					if sse {
						w.Header().Set("Content-Type", "text/event-stream")
						fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
						return
					}
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprint(w, b)
				}
				switch m.Method {
				case "initialize":
					inits.Add(1)
					answer(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"h","version":"1"}}}`)
				case "tools/list":
					answer(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"tools":[{"name":"nullid","inputSchema":{"type":"object"}},{"name":"noid","inputSchema":{"type":"object"}}]}}`)
				default:
					if strings.Contains(string(m.Params), `"noid"`) {
						answer(`{"jsonrpc":"2.0","result":{"content":[]}}`)
						return
					}
					answer(`{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"Invalid params: the frobnicated argument"}}`)
				}
			}))
			t.Cleanup(srv.Close)
			_, rec, _, err := startBridge(t, map[string]ServerConfig{"h": {URL: srv.URL + "/mcp", ConnectTimeout: 5 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			p := rec.provider("org.aios.mcp.h")
			for range 2 {
				_, err = call(t, p, "mcp-h-nullid", nil, 10*time.Second)
				t.Logf("nullid: %v", err)
				if abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), "the frobnicated argument") || !strings.Contains(err.Error(), "mcp-h-nullid") {
					t.Errorf("a call answered with an error of id null: %v; want the server's error (InvalidParams, its message, the tool)", err)
				}
			}
			_, err = call(t, p, "mcp-h-noid", nil, 10*time.Second)
			t.Logf("noid: %v", err)
			if abi.CodeOf(err) != abi.ProviderError || !strings.Contains(err.Error(), "without its id") {
				t.Errorf("a call answered with a result without an id: %v; want ProviderError saying so", err)
			}
			if n := inits.Load(); n != 1 {
				t.Errorf("the bridge initialized %d sessions, want 1 (no reconnect)", n)
			}
		})
	}
}

// TestAnswerUnderObjectIDKeepsSession: an answer whose id is neither a
// string nor a number ({"id":{"a":1}}, an array, true) cannot name a
// request. The go-sdk failed to decode it and ended the connection: every
// call in flight answered ProviderError "parse error", as if the server
// had answered it so, and the server was restarted (found by p180). It is
// taken as an answer without an id: over stdio logged and dropped, the
// session going on; over HTTP the POST's request's answer, saying what
// the id was.
func TestAnswerUnderObjectIDKeepsSession(t *testing.T) {
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"p": p180Config(t)})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	v, err := call(t, p, "mcp-p-echo", nil, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, pid, _ := strings.Cut(formatValue(v), " pid ")
	pid, _, _ = strings.Cut(pid, `"`)
	for i, line := range []string{
		`{"jsonrpc":"2.0","id":{"a":1},"result":{}}`,
		`{"jsonrpc":"2.0","id":[7],"error":{"code":-32600,"message":"Invalid Request"}}`,
		`{"jsonrpc":"2.0","id":true,"result":{}}`,
	} {
		v, err := call(t, p, "mcp-p-stray", map[string]any{"line": line}, 10*time.Second)
		if err != nil {
			t.Fatalf("a call during which the server wrote %s: %v", line, err)
		}
		if got, want := formatValue(v), fmt.Sprintf("echo %d pid %s", i+2, pid); !strings.Contains(got, want) {
			t.Fatalf("after %s the call answered %s, want %q (the same process: no restart)", line, got, want)
		}
	}
	if l := logs.String(); !strings.Contains(l, "neither a string nor a number") {
		t.Errorf("the log does not say what was dropped:\n%s", l)
	}

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
		switch m.Method {
		case "initialize":
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"h","version":"1"}}}`)
		case "tools/list":
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"tools":[{"name":"objid","inputSchema":{"type":"object"}}]}}`)
		default:
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":{"n":`+string(m.ID)+`},"result":{"content":[]}}`)
		}
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err = startBridge(t, map[string]ServerConfig{"h": {URL: srv.URL + "/mcp", ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err = call(t, rec.provider("org.aios.mcp.h"), "mcp-h-objid", nil, 10*time.Second)
		t.Logf("objid: %v", err)
		if abi.CodeOf(err) != abi.ProviderError || !strings.Contains(err.Error(), `under the id {"n":`) || !strings.Contains(err.Error(), "mcp-h-objid") {
			t.Errorf("a call answered under an object id: %v; want ProviderError naming the tool and the id", err)
		}
	}
}

// TestStrayStdoutLinesSkipped: a line of a stdio server's stdout that is
// not a JSON-RPC message — a banner, a print() left in a tool, a JSON log
// line, text longer than the reader had buffered, a broken value — ended
// the connection (the go-sdk's way): every call in flight failed and the
// server was restarted. The reference SDKs' clients skip such a line. Now
// it is skipped to its end and logged, and the call it came during is
// answered by the same process.
func TestStrayStdoutLinesSkipped(t *testing.T) {
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"p": p180Config(t)})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	v, err := call(t, p, "mcp-p-echo", nil, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, pid, _ := strings.Cut(formatValue(v), " pid ")
	pid, _, _ = strings.Cut(pid, `"`)
	for i, line := range []string{
		"Processing request...",
		`{"level":"info","msg":"handling the call"}`,
		"   " + strings.Repeat("x", 20000) + " end",
		`[1, 2`,
		`{"jsonrpc": oops}`,
		"DEBUG: {\"jsonrpc\":\"2.0\"} went out",
		// As Go's log package writes a line: 2024 read as a number, then
		// text after it, which ended the connection as trailing data.
		"2024/01/02 15:04:05 listening on stdio",
		`"quoted" and then text`,
		"42",
	} {
		v, err := call(t, p, "mcp-p-stray", map[string]any{"line": line}, 10*time.Second)
		if err != nil {
			t.Fatalf("a call during which the server wrote %.60q: %v", line, err)
		}
		if got, want := formatValue(v), fmt.Sprintf("echo %d pid %s", i+2, pid); !strings.Contains(got, want) {
			t.Fatalf("after %.60q the call answered %s, want %q (the same process: no restart)", line, got, want)
		}
	}
	// Text after the answer on its line: the answer is taken, the text
	// skipped (blank text without a word).
	for i, tail := range []string{" <- sent", "   ", "\t2024 more"} {
		v, err := call(t, p, "mcp-p-tail", map[string]any{"line": tail}, 10*time.Second)
		if err != nil {
			t.Fatalf("an answer followed by %q on its line: %v", tail, err)
		}
		if got, want := formatValue(v), fmt.Sprintf("echo %d pid %s", i+11, pid); !strings.Contains(got, want) {
			t.Fatalf("an answer followed by %q answered %s, want %q", tail, got, want)
		}
	}
	l := logs.String()
	for _, want := range []string{"Processing request...", "handling the call", "xxxxxxxxxx", "line is skipped", "its logs go to stderr",
		"2024/01/02 15:04:05 listening on stdio", "quoted", "and then text", "<- sent", "2024 more"} {
		if !strings.Contains(l, want) {
			t.Errorf("the log does not show %q:\n%.3000s", want, l)
		}
	}
}
