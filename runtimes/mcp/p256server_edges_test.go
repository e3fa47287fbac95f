package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// The misbehaving stdio server of these probes: with AIOS_MCP_P256=<mode>
// this test binary is an MCP server misbehaving as mode says, at
// initialize (preinit, initerror, initnull, initnoversion,
// initoldversion), in tools/list (dupe: two pages repeating a tool) or in
// its tools (both: an answer with result and error; noeol: the answer
// without a newline, then exit).
func init() {
	if mode := os.Getenv("AIOS_MCP_P256"); mode != "" {
		os.Exit(runP256Server(mode))
	}
}

func p256Config(t testing.TB, mode string) ServerConfig {
	sc := fakeConfig(t, "unused")
	delete(sc.Env, "AIOS_MCP_FAKE")
	sc.Env["AIOS_MCP_P256"] = mode
	sc.ConnectTimeout = 5 * time.Second
	return sc
}

func runP256Server(mode string) int {
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	raw := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		out.WriteString(s)
		out.Flush()
	}
	send := func(v any) {
		b, _ := json.Marshal(v)
		raw(string(b) + "\n")
	}
	reply := func(id json.RawMessage, result any) {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	text := func(s string) map[string]any {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	cleared := false
	for in.Scan() {
		var m fakeMsg
		if err := json.Unmarshal(in.Bytes(), &m); err != nil || len(m.ID) == 0 || m.Method == "" {
			continue
		}
		switch m.Method {
		case "initialize":
			switch mode {
			case "preinit":
				send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "data": "starting"}})
				send(map[string]any{"jsonrpc": "2.0", "id": "early-ping", "method": "ping"})
				send(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
			case "initerror":
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32602, "message": "Unsupported protocol version", "data": map[string]any{"supported": []string{"2024-11-05"}}}})
				continue
			case "initnull":
				raw(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":null}` + "\n")
				continue
			case "initnoversion":
				reply(m.ID, map[string]any{"capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "x", "version": "1"}})
				continue
			case "initoldversion":
				reply(m.ID, map[string]any{"protocolVersion": "2024-10-07", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "x", "version": "1"}})
				continue
			}
			reply(m.ID, map[string]any{"protocolVersion": "2025-06-18",
				"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}},
				"serverInfo":   map[string]any{"name": "p256", "version": "1"}})
		case "ping":
			reply(m.ID, map[string]any{})
		case "tools/list":
			var p struct {
				Cursor string `json:"cursor"`
			}
			_ = json.Unmarshal(m.Params, &p)
			names := []string{"both", "noeol", "echo", "clear"}
			if cleared {
				names = nil
			}
			res := map[string]any{}
			if mode == "dupe" {
				if p.Cursor == "" {
					names = []string{"a", "b"}
					res["nextCursor"] = "2"
				} else {
					names = []string{"b", "c"}
				}
			}
			var ts []any
			for _, n := range names {
				ts = append(ts, map[string]any{"name": n, "description": "tool " + n + " cursor " + p.Cursor, "inputSchema": obj(`{"type":"object"}`)})
			}
			if mode == "schemas" {
				ts = []any{
					map[string]any{"name": "noschema"},
					map[string]any{"name": "nullschema", "inputSchema": nil},
					map[string]any{"name": "trueschema", "inputSchema": true},
					map[string]any{"name": "badout", "inputSchema": obj(`{"type":"object"}`), "outputSchema": obj(`{"type":"nope"}`)},
					map[string]any{"name": "strout", "inputSchema": obj(`{"type":"object"}`), "outputSchema": obj(`{"type":"string"}`)},
					map[string]any{"name": "bigdesc", "description": strings.Repeat("d", 1<<20), "inputSchema": obj(`{"type":"object"}`)},
					map[string]any{"name": "nulldesc", "description": nil, "inputSchema": obj(`{"type":"object"}`)},
					map[string]any{"name": "numname", "inputSchema": obj(`{"type":"object","properties":{"1":{"type":"string"}},"required":["1","2"]}`)},
					map[string]any{"name": "defaults", "inputSchema": obj(`{"type":"object","properties":{"n":{"type":"integer","default":"x"}}}`)},
					map[string]any{"name": "echo", "inputSchema": obj(`{"type":"object"}`)},
				}
			}
			res["tools"] = ts
			reply(m.ID, res)
		case "tools/call":
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(m.Params, &p)
			switch p.Name {
			case "both":
				raw(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[{"type":"text","text":"ok"}]},"error":{"code":-32000,"message":"failed"}}` + "\n")
			case "clear": // no tools from now on, and it says so
				cleared = true
				reply(m.ID, text("cleared"))
				send(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
			case "noeol":
				raw(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[{"type":"text","text":"last words"}]}}`)
				time.Sleep(50 * time.Millisecond)
				return 0
			default:
				reply(m.ID, text(fmt.Sprint("echo ", p.Name)))
			}
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no " + m.Method}})
		}
	}
	return 0
}
