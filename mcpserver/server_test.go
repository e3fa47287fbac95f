package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// exportCfg lists every exported tool (tools_list: all), callable by the
// default mcp agent or not, for the tests of what an exported tool looks
// like; TestToolsListCallable tests the default.
const exportCfg = "mcp:\n  export: ['pat-*']\n  tools_list: all\n"

func TestListToolsExportsOnlyExportable(t *testing.T) {
	_, s := newTestHost(t, exportCfg)
	cs := connectInMemory(t, s, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcpsdk.Tool{}
	var names []string
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
		names = append(names, tl.Name)
	}
	if want := []string{"add", "echo", "needs-space", "pat-one", "pat-text"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	add := byName["add"]
	if add.OutputSchema == nil || add.Description != "add integers" || add.InputSchema.(map[string]any)["additionalProperties"] != false {
		t.Errorf("add = %+v", add)
	}
	if a := add.Annotations; a == nil || !a.IdempotentHint || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
		t.Errorf("add annotations = %+v", add.Annotations)
	}
	if a := byName["pat-one"].Annotations; a == nil || a.DestructiveHint == nil || !*a.DestructiveHint || a.ReadOnlyHint {
		t.Errorf("pat-one (critical) annotations = %+v", a)
	}
	if a := byName["echo"].Annotations; a == nil || a.DestructiveHint == nil || *a.DestructiveHint || a.IdempotentHint {
		t.Errorf("echo (medium) annotations = %+v", a)
	}
	if byName["echo"].OutputSchema != nil {
		t.Error("echo has an outputSchema but declares no return schema")
	}
	if v := byName["echo"].Meta["org.aios/provider"]; v != "org.test.tools" {
		t.Errorf("echo _meta = %v", byName["echo"].Meta)
	}
}

func TestCallTool(t *testing.T) {
	_, s := newTestHost(t, exportCfg)
	cs := connectInMemory(t, s, nil)
	tests := []struct {
		name       string
		tool       string
		args       any
		isError    bool
		text       string // content text, or prefix of the error text
		structured any
	}{
		{"echo", "echo", map[string]any{"value": map[string]any{"a": []any{1, "x", nil}}}, false, `{"value":{"a":[1,"x",null]}}`, nil},
		{"structured", "add", map[string]any{"a": 2, "b": 40}, false, `{"sum":42}`, map[string]any{"sum": float64(42)}},
		{"string result is plain text", "pat-text", map[string]any{}, false, "text result", nil},
		{"mcp agent below critical", "pat-one", map[string]any{}, true, "CapabilityDenied: tool pat-one@1.0.0 has permission level critical", nil},
		{"schema violation is InvalidParams", "add", map[string]any{"a": "two", "b": 1}, true, "InvalidParams: ", nil},
		{"extra property is InvalidParams", "add", map[string]any{"a": 1, "b": 1, "c": 1}, true, "InvalidParams: ", nil},
		{"missing required", "echo", map[string]any{}, true, "InvalidParams: ", nil},
		{"no arguments at all", "echo", nil, true, "InvalidParams: ", nil},
		{"mcp agent lacks ReadSpace", "needs-space", map[string]any{}, true, "CapabilityDenied: ", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.isError || len(res.Content) != 1 {
				t.Fatalf("result = %+v", res)
			}
			text := res.Content[0].(*mcpsdk.TextContent).Text
			if tc.isError {
				if !strings.HasPrefix(text, tc.text) {
					t.Fatalf("error text %q, want prefix %q", text, tc.text)
				}
				e, _ := res.Meta[MetaError].(map[string]any)
				if e == nil || !strings.HasPrefix(tc.text, e["code"].(string)) {
					t.Fatalf("_meta = %v", res.Meta)
				}
				return
			}
			if text != tc.text {
				t.Fatalf("text %q, want %q", text, tc.text)
			}
			if !reflect.DeepEqual(res.StructuredContent, tc.structured) {
				t.Fatalf("structuredContent %#v, want %#v", res.StructuredContent, tc.structured)
			}
		})
	}
	// Hidden and unknown tools are protocol errors, not tool results.
	for _, name := range []string{"hidden", "nope"} {
		if _, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: map[string]any{}}); err == nil {
			t.Errorf("calling %s succeeded", name)
		}
	}
}

// TestCriticalNeedsExplicitMaxPermission: the mcp agent's ceiling is high
// by default (TestCallTool/mcp_agent_below_critical); a config that raises
// agents.mcp.max_permission to critical lets MCP clients call critical tools.
func TestCriticalNeedsExplicitMaxPermission(t *testing.T) {
	_, s := newTestHost(t, exportCfg+"agents:\n  mcp:\n    grants: ['CallTool(pat-*)']\n    max_permission: critical\n")
	cs := connectInMemory(t, s, nil)
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "pat-one", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcpsdk.TextContent).Text != "critical result" {
		t.Fatalf("result = %+v", res)
	}
}

func TestListChangedFollowsRegistry(t *testing.T) {
	h, s := newTestHost(t, "")
	changed := make(chan struct{}, 16)
	cs := connectInMemory(t, s, &mcpsdk.ClientOptions{ToolListChangedHandler: func(context.Context, *mcpsdk.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	names := func() []string {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	p := native.New(abi.ProviderInfo{ID: "org.test.late"})
	p.MustRegister(abi.ToolDef{Name: "late", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "late", nil })
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, changed, func() bool { return contains(names(), "late") })
	if err := h.RemoveProvider("org.test.late"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, changed, func() bool { return !contains(names(), "late") })
	if !contains(s.Tools(), "echo") || contains(s.Tools(), "late") {
		t.Errorf("exported = %v", s.Tools())
	}
}

func waitFor(t *testing.T, changed <-chan struct{}, ok func() bool) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case <-changed:
			if ok() {
				return
			}
		case <-deadline:
			t.Fatal("no tools/list_changed notification with the expected list")
		}
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestStdioMalformedJSONRPC drives the stdio transport with raw lines, as
// a broken client would: each bad message gets a JSON-RPC error and the
// session keeps serving.
func TestStdioMalformedJSONRPC(t *testing.T) {
	_, s := newTestHost(t, "")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, StdioTransport(inR, outW)) }()
	dec := json.NewDecoder(outR)
	send := func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	read := func() map[string]any {
		var m map[string]any
		ch := make(chan error, 1)
		go func() { ch <- dec.Decode(&m) }()
		select {
		case err := <-ch:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no answer")
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := read(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	bad := []struct{ name, line string }{
		{"not JSON", `garbage {{{`},
		{"truncated JSON", `{"jsonrpc":`},
		{"JSON but not JSON-RPC", `{"hello":"world"}`},
		{"a string", `"tools/list"`},
		{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"tools/list"}`},
		{"empty batch", `[]`},
		{"unknown method", `{"jsonrpc":"2.0","id":2,"method":"tools/explode"}`},
		{"params of the wrong type", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"echo"}`},
		{"arguments not an object", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`},
	}
	for _, b := range bad {
		t.Log(b.name)
		send(b.line)
		m := read()
		if m["error"] == nil && !(m["result"] != nil && m["result"].(map[string]any)["isError"] == true) {
			t.Errorf("%s: answer %v, want an error", b.name, m)
		}
	}
	send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"value":1}}}`)
	if m := read(); m["result"] == nil || m["id"] != float64(9) {
		t.Fatalf("after bad input: %v", m)
	}
	inW.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("session did not end")
	}
}

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"defaults", "", ""},
		{"unknown key", "mcp:\n  exprot: [x]\n", `unknown key "exprot"`},
		{"unknown agent", "mcp:\n  agent: nobody\n", `agent "nobody" is not defined`},
		{"unknown scope agent", "mcp:\n  http:\n    issuer: https://a\n    jwks_file: x\n    scopes: [{scope: s, agent: nobody}]\n", `http.scopes[0].agent: agent "nobody"`},
		{"issuer without keys", "mcp:\n  http:\n    issuer: https://a\n", "needs jwks_url or jwks_file"},
		{"keys without issuer", "mcp:\n  http:\n    jwks_url: https://a/k\n", "needs issuer"},
		{"bad resource", "mcp:\n  http:\n    resource: /mcp\n", "is not an http(s) URL"},
		{"empty export", "mcp:\n  export: ['']\n", "empty pattern"},
		{"servers left to the bridge", "mcp:\n  servers:\n    x: {command: y}\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tc.yaml), "c.yaml")
			if err != nil {
				t.Fatal(err)
			}
			_ = AddDefaultAgent(cfg) // its decode errors are LoadConfig's too
			c, err := LoadConfig(cfg)
			if tc.want == "" {
				if err != nil || c.Agent != DefaultAgent {
					t.Fatalf("err = %v, agent %q", err, c.Agent)
				}
				if g := cfg.Agents[DefaultAgent].Grants; !reflect.DeepEqual(g, DefaultAgentGrants()) {
					t.Fatalf("default agent grants = %v", g)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestAddDefaultAgentKeepsConfiguredAgent(t *testing.T) {
	cfg, err := config.Parse([]byte("agents:\n  mcp:\n    grants: ['CallTool(echo)', 'ReadSpace(*)']\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := AddDefaultAgent(cfg); err != nil {
		t.Fatal(err)
	}
	if g := cfg.Agents["mcp"].Grants; len(g) != 2 || g[0] != "CallTool(echo)" {
		t.Fatalf("grants = %v", g)
	}
}

// TestBridgedContentPassesThrough: a tool imported from another MCP server
// answers with the MCP envelope; re-exported, its content blocks (text and
// an image here) reach the client as they came, not as the envelope's JSON
// in one text block. The same shape from a tool of another runtime stays
// JSON text.
func TestBridgedContentPassesThrough(t *testing.T) {
	h, s := newTestHost(t, exportCfg)
	envelope := map[string]any{"content": []any{
		map[string]any{"type": "text", "text": "hi a"},
		map[string]any{"type": "image", "data": "aGk=", "mimeType": "image/png"},
	}}
	for _, rt := range []string{abi.RuntimeMCP, abi.RuntimeNative} {
		p := native.New(abi.ProviderInfo{ID: "org.test." + rt})
		p.MustRegister(abi.ToolDef{Name: "pat-" + rt, Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return envelope, nil })
		if err := h.AddProvider(context.Background(), runtimeAs{p, rt}, host.ProviderMeta{Source: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	cs := connectInMemory(t, s, nil)
	waitTool := func(name string) {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			res, err := cs.ListTools(context.Background(), nil)
			if err == nil {
				for _, tl := range res.Tools {
					if tl.Name == name {
						return
					}
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("%s not exported", name)
	}
	waitTool("pat-mcp")
	waitTool("pat-native")
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "pat-mcp", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("bridged result: %+v", res)
	}
	if tc, ok := res.Content[0].(*mcpsdk.TextContent); !ok || tc.Text != "hi a" {
		t.Fatalf("content[0] = %#v", res.Content[0])
	}
	if im, ok := res.Content[1].(*mcpsdk.ImageContent); !ok || string(im.Data) != "hi" || im.MIMEType != "image/png" {
		t.Fatalf("content[1] = %#v", res.Content[1])
	}
	res, err = cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "pat-native", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || !strings.Contains(res.Content[0].(*mcpsdk.TextContent).Text, `"content":[`) {
		t.Fatalf("native result: %+v", res)
	}
}

// runtimeAs is a native provider that describes itself as another runtime.
type runtimeAs struct {
	*native.Provider
	rt string
}

func (r runtimeAs) Describe() *abi.ToolRegister {
	reg := *r.Provider.Describe()
	reg.Provider.Runtime = r.rt
	return &reg
}
