package mcpserver

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// addChatty registers tools that log: chatty logs at debug, info and warn
// and calls whisper, which logs at info; spam logs n times (params.n),
// then closes logged.
func addChatty(t *testing.T, h *host.Host, logged chan struct{}) {
	t.Helper()
	p := native.New(abi.ProviderInfo{ID: "org.test.chatty", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "whisper", Parameters: map[string]any{"type": "object"}},
		func(_ context.Context, _ any, env abi.Env) (any, error) {
			env.Logger().Info("nested says hi")
			return "w", nil
		})
	p.MustRegister(abi.ToolDef{Name: "chatty", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			l := env.Logger()
			l.Debug("too fine")
			l.Info("working", "step", 1)
			l.Warn("careful")
			if _, err := env.CallTool(ctx, "whisper", "", map[string]any{}); err != nil {
				return nil, err
			}
			return "done", nil
		})
	p.MustRegister(abi.ToolDef{Name: "spam", MCPExportable: true, Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"n": map[string]any{"type": "integer"}}, "required": []any{"n"}}},
		func(_ context.Context, params any, env abi.Env) (any, error) {
			n := params.(map[string]any)["n"].(int64)
			l := env.Logger()
			for i := range n {
				l.Info("line", "i", i)
			}
			if logged != nil {
				close(logged)
			}
			return "spammed", nil
		})
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
}

// TestToolLogsForwarded: the server declares logging; once the client has
// set a level, what the tools serving its call log at that level or above
// (the nested call's too) reaches it as notifications/message on the
// call's own stream, before the result, naming tool, provider and call;
// before setLevel nothing is sent.
func TestToolLogsForwarded(t *testing.T) {
	s, base := anonHTTP(t, "")
	addChatty(t, s.h, nil)
	waitExported(t, s, "chatty")
	a := post(t, base, initBody, nil)
	if !strings.Contains(a.body, `"logging":{}`) {
		t.Errorf("initialize: %s, want the logging capability", a.body)
	}
	sid := initSession(t, base)
	hdr := map[string]string{sessionHeader: sid}
	call := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"chatty","arguments":{}}}`
	if ms := post(t, base, call, hdr).messages(t); len(ms) != 1 || ms[0]["result"] == nil {
		t.Fatalf("call before setLevel: %v, want the result alone", ms)
	}
	if a := post(t, base, `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"info"}}`, hdr); a.status != 200 {
		t.Fatalf("setLevel: %d %s", a.status, a.body)
	}
	ms := post(t, base, strings.Replace(call, `"id":5`, `"id":7`, 1), hdr).messages(t)
	if len(ms) != 4 || ms[3]["id"] != float64(7) || ms[3]["result"] == nil {
		t.Fatalf("call after setLevel info: %v, want 3 log messages and the result last", ms)
	}
	want := []struct{ level, msg, tool string }{{"info", "working", "chatty"}, {"warning", "careful", "chatty"}, {"info", "nested says hi", "whisper"}}
	for i, w := range want {
		m := ms[i]
		p, _ := m["params"].(map[string]any)
		d, _ := p["data"].(map[string]any)
		if m["method"] != "notifications/message" || p["level"] != w.level || p["logger"] != w.tool || d["message"] != w.msg ||
			d["tool"] != w.tool || d["provider"] != "org.test.chatty" || d["call_id"] == "" {
			t.Errorf("message %d: %v, want %s %q from %s", i, m, w.level, w.msg, w.tool)
		}
	}
	if d := ms[0]["params"].(map[string]any)["data"].(map[string]any); d["step"] != float64(1) {
		t.Errorf("attributes not forwarded: %v", d)
	}
}

// TestToolLogsForwardedDropped: a tool logging faster than the client
// reads never waits for it; what does not fit the queue is dropped, and
// one warning at the end says how many.
func TestToolLogsForwardedDropped(t *testing.T) {
	h, s := newTestHost(t, "")
	logged := make(chan struct{})
	addChatty(t, h, logged)
	waitExported(t, s, "spam")
	var mu sync.Mutex
	var got []*mcpsdk.LoggingMessageParams
	cs := connectInMemory(t, s, &mcpsdk.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcpsdk.LoggingMessageRequest) {
		<-logged // the client reads nothing until the tool has logged all
		mu.Lock()
		got = append(got, r.Params)
		mu.Unlock()
	}})
	ctx := context.Background()
	// The go-sdk client speaks 2026-07-28: the level is the request's.
	const n = 3 * logQueue
	r, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "spam", Arguments: map[string]any{"n": n},
		Meta: mcpsdk.Meta{mcpsdk.MetaKeyLogLevel: "debug"}})
	if err != nil || r.IsError {
		t.Fatalf("spam: %v %v", r, err)
	}
	var last *mcpsdk.LoggingMessageParams
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		if len(got) > 0 && got[len(got)-1].Level == "warning" {
			last = got[len(got)-1]
		}
		k := len(got)
		mu.Unlock()
		if last != nil {
			// Every line is forwarded or counted as dropped.
			d, _ := last.Data.(map[string]any)
			if dropped, _ := d["dropped"].(float64); int(dropped)+k-1 != n || dropped < 1 {
				t.Errorf("%d lines forwarded and %v dropped, want %d in all, some dropped", k-1, d["dropped"], n)
			}
			break
		}
	}
	if last == nil {
		mu.Lock()
		t.Fatalf("no warning about dropped messages (%d forwarded)", len(got))
	}
	d, _ := last.Data.(map[string]any)
	if msg, _ := d["message"].(string); !strings.Contains(msg, "were not forwarded") || d["dropped"] == nil {
		t.Errorf("warning %v", d)
	}
}
