package mcp

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// The stdio server of these probes (p150): with AIOS_MCP_P150 set this
// test binary serves the tools "echo" (answers "echo <n>", n counting the
// process's calls), "orphan" (starts a child that inherits its stdout,
// then exits without answering), "noanswer" (answers with neither a
// result nor an error), "strerror" (answers with an error that is a
// string) and "die" (exits). With AIOS_MCP_P150_SLOWRESTART
// naming a file, every start but the first answers initialize 3 s late;
// with AIOS_MCP_P150_ONCE naming one, every start but the first fails;
// with AIOS_MCP_P150_SLOWLIST naming one, every start but the first
// answers tools/list 2 s late, serving calls meanwhile.
func init() {
	if os.Getenv("AIOS_MCP_P150") != "" {
		os.Exit(runP150Server())
	}
}

func p150Config(t testing.TB) ServerConfig {
	sc := fakeConfig(t, "unused")
	delete(sc.Env, "AIOS_MCP_FAKE")
	sc.Env["AIOS_MCP_P150"] = "1"
	return sc
}

func runP150Server() int {
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
	if f := os.Getenv("AIOS_MCP_P150_ONCE"); f != "" {
		// Every start but the first fails.
		if _, err := os.Stat(f); err == nil {
			return 1
		}
		_ = os.WriteFile(f, nil, 0o600)
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
			if f := os.Getenv("AIOS_MCP_P150_SLOWRESTART"); f != "" {
				// Every start but the first answers initialize 3 s late.
				if _, err := os.Stat(f); err == nil {
					time.Sleep(3 * time.Second)
				} else {
					_ = os.WriteFile(f, nil, 0o600)
				}
			}
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"protocolVersion": "2025-06-18",
				"capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "p150", "version": "1"}}})
		case "tools/list":
			var ts []any
			for _, n := range []string{"echo", "orphan", "noanswer", "die", "strerror"} {
				ts = append(ts, map[string]any{"name": n, "inputSchema": obj(`{"type":"object"}`)})
			}
			if f := os.Getenv("AIOS_MCP_P150_SLOWLIST"); f != "" {
				// Every start but the first answers tools/list 2 s late,
				// serving calls meanwhile.
				if _, err := os.Stat(f); err == nil {
					go func(id json.RawMessage) {
						time.Sleep(2 * time.Second)
						send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"tools": ts}})
					}(m.ID)
					continue
				}
				_ = os.WriteFile(f, nil, 0o600)
			}
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"tools": ts}})
		case "tools/call":
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(m.Params, &p)
			calls++
			switch p.Name {
			case "orphan":
				// A helper process of the server's, which inherits its
				// stdout (as a shell's or a tool's children do), outlives
				// it: the server crashes.
				c := exec.Command("sleep", "60")
				c.Stdout = os.Stdout
				if err := c.Start(); err != nil {
					return 2
				}
				os.Exit(4)
			case "die":
				os.Exit(3)
			case "strerror":
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": "it broke"})
			case "noanswer":
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID})
			default:
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
					"content": []any{map[string]any{"type": "text", "text": "echo " + strconv.Itoa(calls)}}}})
			}
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no " + m.Method}})
		}
	}
	return 0
}

// TestServerExitLeavingStdoutHeldIsACrash: a stdio server that exits
// while a process it started still holds its stdout (a helper, a
// child of a wrapper script) never ended its session: the bridge waited
// for EOF on stdout, so the call during which it died and every later
// call answered Timeout at their deadlines, the server was never
// restarted, and its process stayed a zombie until the host closed
// (found by p150). Now the bridge notices the process's exit, kills what
// is left of its process group, and the call answers ProviderCrashed at
// once; the next call is served by a restarted server.
func TestServerExitLeavingStdoutHeldIsACrash(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"p": p150Config(t)})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	start := time.Now()
	_, err = call(t, p, "mcp-p-orphan", nil, 30*time.Second)
	t.Logf("orphan: %v (after %v)", err, time.Since(start))
	if abi.CodeOf(err) != abi.ProviderCrashed {
		t.Fatalf("a call during which the server exited answered %v, want ProviderCrashed", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the crash was noticed after %v", d)
	}
	v, err := call(t, p, "mcp-p-echo", nil, 30*time.Second)
	if err != nil || !strings.Contains(formatValue(v), "echo 1") {
		t.Fatalf("the call after the crash answered %s %v, want a restarted server's first answer", formatValue(v), err)
	}
}
