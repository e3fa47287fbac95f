package mcpserver

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestToolsCallMetaDepth: a tools/call that came through another aios
// host's MCP bridge started at depth 0 here, whatever its depth there, so
// two hosts serving tools through each other (a tool of each calling the
// other's over MCP) called each other until the deadline, each hop a
// fresh chain, and the caller got Timeout. The depth given in
// _meta["org.aios/depth"] (the bridge sends its call's depth + 1, as
// JSON-RPC's tools/call depth) is the call's: past limits.max_call_depth
// it is DepthExceeded, and a depth that is not a whole number from 0 is
// InvalidParams naming the key.
func TestToolsCallMetaDepth(t *testing.T) {
	_, s := newTestHost(t, "limits: {max_call_depth: 2}\n")
	cs := connectInMemory(t, s, nil)
	codeOf := func(meta mcpsdk.Meta) (string, string) {
		t.Helper()
		r, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Meta: meta, Name: "echo", Arguments: map[string]any{"value": 1}})
		if err != nil {
			t.Fatalf("depth %v: %v", meta, err)
		}
		if !r.IsError {
			return "", ""
		}
		e, _ := r.Meta[MetaError].(map[string]any)
		code, _ := e["code"].(string)
		msg, _ := e["message"].(string)
		return code, msg
	}
	for _, d := range []any{nil, 0, 2} {
		var meta mcpsdk.Meta
		if d != nil {
			meta = mcpsdk.Meta{MetaDepth: d}
		}
		if code, msg := codeOf(meta); code != "" {
			t.Errorf("depth %v: %s: %s; want the call to run", d, code, msg)
		}
	}
	if code, msg := codeOf(mcpsdk.Meta{MetaDepth: 3}); code != "DepthExceeded" || !strings.Contains(msg, "limits.max_call_depth") {
		t.Errorf("depth 3 with max_call_depth 2: %s: %s; want DepthExceeded", code, msg)
	}
	for _, bad := range []any{-1, 1.5, "2", true} {
		if code, msg := codeOf(mcpsdk.Meta{MetaDepth: bad}); code != "InvalidParams" || !strings.Contains(msg, MetaDepth) {
			t.Errorf("depth %#v: %s: %s; want InvalidParams naming %s", bad, code, msg, MetaDepth)
		}
	}
}

// TestToolsCallMetaParentID: a tools/call that came through another aios
// host's MCP bridge was recorded with no parent, so its record could not
// be joined to the call that made it in the other host's audit log. The
// id given in _meta["org.aios/parent_id"] is recorded as the call's
// parent, "client:<id>", as JSON-RPC's tools/call parent_id is: never as
// a call of this host.
func TestToolsCallMetaParentID(t *testing.T) {
	h, s := newTestHost(t, "")
	parents := make(chan string, 4)
	defer h.OnCall(func(st host.CallStats) { parents <- st.ParentID })()
	cs := connectInMemory(t, s, nil)
	for _, tc := range []struct {
		meta mcpsdk.Meta
		want string
	}{{mcpsdk.Meta{MetaParentID: "mxa-42"}, "client:mxa-42"}, {nil, ""}} {
		r, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Meta: tc.meta, Name: "echo", Arguments: map[string]any{"value": 1}})
		if err != nil || r.IsError {
			t.Fatalf("%v: %v %+v", tc.meta, err, r)
		}
		select {
		case p := <-parents:
			if p != tc.want {
				t.Errorf("_meta %v: the call's parent is %q; want %q", tc.meta, p, tc.want)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no call observed")
		}
	}
}

// TestToolsCallMetaTimeout: a tools/call that came through another aios
// host's MCP bridge ran under this host's limits.default_deadline (30 s),
// whatever was left of the deadline of the call that made it, so a call
// given two minutes there failed with Timeout here after 30 s. The
// milliseconds given in _meta["org.aios/timeout_ms"] (what the bridge has
// left of its deadline, as JSON-RPC's tools/call timeout_ms) are the
// call's, within limits.max_deadline; a value that is not a whole number
// above 0 is InvalidParams naming the key.
func TestToolsCallMetaTimeout(t *testing.T) {
	h, s := newTestHost(t, "limits: {default_deadline: 30s, max_deadline: 10m}\n")
	p := native.New(abi.ProviderInfo{ID: "org.test.left", Runtime: abi.RuntimeNative})
	p.MustRegister(abi.ToolDef{Name: "left", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, _ abi.Env) (any, error) {
			d, _ := ctx.Deadline()
			return time.Until(d).Milliseconds(), nil
		})
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	cs := connectInMemory(t, s, nil)
	left := func(meta mcpsdk.Meta) (*mcpsdk.CallToolResult, int64) {
		t.Helper()
		r, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Meta: meta, Name: "left", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%v: %v", meta, err)
		}
		if r.IsError {
			return r, 0
		}
		tc, _ := r.Content[0].(*mcpsdk.TextContent)
		ms, err := strconv.ParseInt(tc.Text, 10, 64)
		if err != nil {
			t.Fatalf("%v: %q", meta, tc.Text)
		}
		return r, ms
	}
	if _, ms := left(nil); ms > 30_000 || ms < 20_000 {
		t.Errorf("no timeout given: %d ms left; want the default deadline's 30 s", ms)
	}
	if _, ms := left(mcpsdk.Meta{MetaTimeoutMS: 120_000}); ms <= 30_000 || ms > 120_000 {
		t.Errorf("timeout_ms 120000: %d ms left; want up to 2 min", ms)
	}
	if _, ms := left(mcpsdk.Meta{MetaTimeoutMS: 3_600_000}); ms <= 30_000 || ms > 600_000 {
		t.Errorf("timeout_ms of an hour: %d ms left; want up to limits.max_deadline's 10 min", ms)
	}
	for _, bad := range []any{0, -5, 1.5, "100"} {
		r, _ := left(mcpsdk.Meta{MetaTimeoutMS: bad})
		e, _ := r.Meta[MetaError].(map[string]any)
		if msg, _ := e["message"].(string); !r.IsError || e["code"] != "InvalidParams" || !strings.Contains(msg, MetaTimeoutMS) {
			t.Errorf("timeout_ms %#v: %+v; want InvalidParams naming %s", bad, e, MetaTimeoutMS)
		}
	}
}

// TestCallBeforeListFollowed: a tools/call of a tool added to the host
// just before is answered by the tool, though the MCP list, which follows
// the registry's events on another goroutine, has not caught up (the CI
// of stop 50 saw "unknown tool" here). The events are cut off to make
// the list stay behind.
func TestCallBeforeListFollowed(t *testing.T) {
	h, s := newTestHost(t, "")
	s.unsub()
	<-s.done
	p := native.New(abi.ProviderInfo{ID: "org.test.late", Runtime: abi.RuntimeNative})
	p.MustRegister(abi.ToolDef{Name: "late", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "here", nil })
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	cs := connectInMemory(t, s, nil)
	r, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "late", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("calling a tool the host has: %v", err)
	}
	if tc, _ := r.Content[0].(*mcpsdk.TextContent); r.IsError || tc == nil || tc.Text != `"here"` && tc.Text != "here" {
		t.Fatalf("late: %+v; want its answer", r.Content[0])
	}
	// A name the host does not have is still unknown.
	if _, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "never", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("never: %v; want unknown tool", err)
	}
}
