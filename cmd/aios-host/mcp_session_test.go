package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/audit"
)

// TestMCPStdioSession: `aios-host mcp` started while another process holds
// the data directory's audit log (a running `run`, or another client's
// `mcp`) serves anyway, writing a log of its own under audit-sessions/;
// and its tool list follows hot reloads of the plugin folder with
// notifications/tools/list_changed.
func TestMCPStdioSession(t *testing.T) {
	data, plugins := t.TempDir(), t.TempDir()
	held, err := audit.Open(filepath.Join(data, "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	write := func(name, tool string) {
		src := "aios.registerTool({name: '" + tool + "', mcpExportable: true, parameters: {type: 'object'}}, () => ({ok: '" + tool + "'}));\n"
		if err := os.WriteFile(filepath.Join(plugins, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("first.js", "first-tool")
	cfg := writeConfig(t, "mcp:\n  export: ['*']\n")

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errb syncBuffer
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"--config", cfg, "--data", data, "--plugins", plugins, "mcp"}, inR, outW, &errb)
		inR.CloseWithError(io.ErrClosedPipe) // a later send fails instead of blocking
		outW.Close()
		done <- code
	}()
	lines := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
		close(lines)
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatalf("write to mcp: %v (stderr: %s)", err, errb.String())
		}
	}
	// next returns the next message matching ok, within d.
	next := func(what string, d time.Duration, ok func(map[string]any) bool) map[string]any {
		t.Helper()
		timeout := time.After(d)
		for {
			select {
			case m, open := <-lines:
				if !open {
					t.Fatalf("%s: mcp ended; stderr: %s", what, errb.String())
				}
				if ok(m) {
					return m
				}
			case <-timeout:
				t.Fatalf("%s: nothing within %s; stderr: %s", what, d, errb.String())
			}
		}
	}
	byID := func(id float64) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["id"] == id }
	}
	toolNames := func(m map[string]any) string {
		var names []string
		res, _ := m["result"].(map[string]any)
		tools, _ := res["tools"].([]any)
		for _, x := range tools {
			names = append(names, x.(map[string]any)["name"].(string))
		}
		return strings.Join(names, ",")
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	init := next("initialize", 30*time.Second, byID(1))
	// serverInfo.version is the build's, as `aios-host version` prints it
	// (it was a constant "0.1.0" whatever the build).
	if res, _ := init["result"].(map[string]any); res == nil {
		t.Fatalf("initialize: %v", init)
	} else if info, _ := res["serverInfo"].(map[string]any); info == nil || info["version"] != buildVersion() {
		t.Fatalf("initialize: serverInfo %v, want version %q", res["serverInfo"], buildVersion())
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if got := toolNames(next("tools/list", 10*time.Second, byID(2))); !strings.Contains(got, "first-tool") || strings.Contains(got, "second-tool") {
		t.Fatalf("tools/list: %s", got)
	}
	write("second.js", "second-tool")
	next("list_changed", 20*time.Second, func(m map[string]any) bool { return m["method"] == "notifications/tools/list_changed" })
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if got := toolNames(next("tools/list after the drop", 10*time.Second, byID(3))); !strings.Contains(got, "second-tool") {
		t.Fatalf("tools/list after a plugin was dropped: %s", got)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"second-tool","arguments":{}}}`)
	if r := next("tools/call", 20*time.Second, byID(4)); r["error"] != nil || strings.Contains(toJSON(r), `"isError":true`) {
		t.Fatalf("tools/call: %s", toJSON(r))
	}
	_ = inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("mcp exited %d: %s", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("mcp did not end after stdin closed")
	}
	if !strings.Contains(errb.String(), "this MCP session writes its own hash-chained log") {
		t.Fatalf("no notice about the session's log: %s", errb.String())
	}
	logs, _ := filepath.Glob(filepath.Join(data, "audit-sessions", "mcp-*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("session logs %v", logs)
	}
	if code, out := runWith(t, nil, io.Discard, "--data", data, "audit", "verify", logs[0]); code != 0 {
		t.Fatalf("audit verify %s: %d %s", logs[0], code, out)
	}
	if b, _ := os.ReadFile(logs[0]); !strings.Contains(string(b), `"tool":"second-tool"`) {
		t.Fatalf("the session log lacks the call:\n%s", b)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
