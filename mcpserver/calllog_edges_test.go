package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestRequestLogLevelInvalid: from 2026-07-28 the level is the request's
// _meta "io.modelcontextprotocol/logLevel"; one that is not one of MCP's
// eight levels is refused with -32602 naming it, as logging/setLevel's is.
// The go-sdk took any string for debug, so a client asking for "Error"
// (or "verbose") got every debug line of the call.
func TestRequestLogLevelInvalid(t *testing.T) {
	h, s := newTestHost(t, "")
	addChatty(t, h, nil)
	waitExported(t, s, "chatty")
	var mu sync.Mutex
	var got []*mcpsdk.LoggingMessageParams
	cs := connectInMemory(t, s, &mcpsdk.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcpsdk.LoggingMessageRequest) {
		mu.Lock()
		got = append(got, r.Params)
		mu.Unlock()
	}})
	for _, level := range []any{"Error", "verbose", "", 3} {
		r, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "chatty", Arguments: map[string]any{},
			Meta: mcpsdk.Meta{mcpsdk.MetaKeyLogLevel: level}})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, mcpsdk.MetaKeyLogLevel) ||
			!strings.Contains(we.Message, fmt.Sprint(level)) {
			t.Errorf("call with log level %#v: %v %v, want -32602 naming the key and the level", level, r, err)
		}
	}
	// A valid one is served.
	if r, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "chatty", Arguments: map[string]any{},
		Meta: mcpsdk.Meta{mcpsdk.MetaKeyLogLevel: "error"}}); err != nil || r.IsError {
		t.Fatalf("call with log level error: %v %v", r, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 0 {
		t.Errorf("%d messages forwarded, want none (the tool logs nothing at error): first %v", len(got), got[0])
	}
}

// addNoisy registers "noisy": it logs a warning, 3 × logQueue debug
// lines and another warning, then closes logged.
func addNoisy(t *testing.T, h *host.Host, logged chan struct{}) {
	t.Helper()
	p := native.New(abi.ProviderInfo{ID: "org.test.noisy"})
	p.MustRegister(abi.ToolDef{Name: "noisy", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(_ context.Context, _ any, env abi.Env) (any, error) {
			l := env.Logger()
			l.Warn("first")
			for i := range 3 * logQueue {
				l.Debug("detail", "i", i)
			}
			l.Warn("important")
			close(logged)
			return "ok", nil
		})
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
}

// TestLogsBelowLevelTakeNoQueueRoom: messages under the client's level
// are never sent, so they must not fill the queue of a call's messages
// waiting for a slow client: a tool logging a warning after many debug
// lines, to a client at level warning, had the warning dropped and the
// client told that hundreds of messages (the debug lines it never asked
// for) were not forwarded. Both ways of setting the level: the request's
// _meta (2026-07-28) and logging/setLevel (2025-06-18, over stdio).
func TestLogsBelowLevelTakeNoQueueRoom(t *testing.T) {
	t.Run("meta", func(t *testing.T) {
		h, s := newTestHost(t, "")
		logged := make(chan struct{})
		addNoisy(t, h, logged)
		waitExported(t, s, "noisy")
		var mu sync.Mutex
		var got []string
		cs := connectInMemory(t, s, &mcpsdk.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcpsdk.LoggingMessageRequest) {
			<-logged // a slow client: it reads nothing until the tool has logged all
			d, _ := r.Params.Data.(map[string]any)
			mu.Lock()
			got = append(got, fmt.Sprint(r.Params.Level, " ", d["message"]))
			mu.Unlock()
		}})
		if r, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "noisy", Arguments: map[string]any{},
			Meta: mcpsdk.Meta{mcpsdk.MetaKeyLogLevel: "warning"}}); err != nil || r.IsError {
			t.Fatalf("noisy: %v %v", r, err)
		}
		// The messages were sent before the result, but the client's
		// handler may still be on them.
		testutil.Eventually(t, "2 messages", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(got) >= 2
		})
		mu.Lock()
		defer mu.Unlock()
		if len(got) != 2 || got[0] != "warning first" || got[1] != "warning important" {
			t.Errorf("client at level warning got %q, want the two warnings", got)
		}
	})
	t.Run("setLevel", func(t *testing.T) {
		h, s := newTestHost(t, "")
		logged := make(chan struct{})
		addNoisy(t, h, logged)
		waitExported(t, s, "noisy")
		ss := newStdioSession(t, s)
		ss.initialize("2025-06-18")
		ss.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"warning"}}`)
		ss.mustRead()
		ss.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"noisy","arguments":{}}}`)
		select { // the client reads nothing until the tool has logged all
		case <-logged:
		case <-time.After(30 * time.Second):
			t.Fatal("the tool did not log")
		}
		var got []string
		for {
			var m map[string]any
			if err := json.Unmarshal([]byte(ss.mustRead()), &m); err != nil {
				t.Fatal(err)
			}
			if m["id"] != nil {
				break
			}
			p, _ := m["params"].(map[string]any)
			d, _ := p["data"].(map[string]any)
			got = append(got, fmt.Sprint(p["level"], " ", d["message"]))
		}
		if len(got) != 2 || got[0] != "warning first" || got[1] != "warning important" {
			t.Errorf("client at level warning got %q, want the two warnings", got)
		}
	})
}

// TestDroppedNoticeReachesClientLevel: the message saying how many of a
// call's messages were dropped for a slow client reaches that client at
// its level: it was a warning, so a client at level error lost hundreds of
// the errors it asked for without a word.
func TestDroppedNoticeReachesClientLevel(t *testing.T) {
	h, s := newTestHost(t, "")
	logged := make(chan struct{})
	p := native.New(abi.ProviderInfo{ID: "org.test.failing"})
	p.MustRegister(abi.ToolDef{Name: "failing", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(_ context.Context, _ any, env abi.Env) (any, error) {
			for i := range 3 * logQueue {
				env.Logger().Error("bad", "i", i)
			}
			close(logged)
			return "ok", nil
		})
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	waitExported(t, s, "failing")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"error"}}`)
	ss.mustRead()
	ss.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"failing","arguments":{}}}`)
	select { // the client reads nothing until the tool has logged all
	case <-logged:
	case <-time.After(30 * time.Second):
		t.Fatal("the tool did not log")
	}
	n, notice := 0, map[string]any(nil)
	for {
		var m map[string]any
		if err := json.Unmarshal([]byte(ss.mustRead()), &m); err != nil {
			t.Fatal(err)
		}
		if m["id"] != nil {
			break
		}
		p, _ := m["params"].(map[string]any)
		if d, _ := p["data"].(map[string]any); d["dropped"] != nil {
			notice = p
		} else {
			n++
		}
	}
	if n == 3*logQueue {
		t.Fatal("nothing was dropped: the client was not slow enough to test")
	}
	if notice == nil {
		t.Fatalf("%d of %d errors forwarded, and no message said the others were dropped", n, 3*logQueue)
	}
	d := notice["data"].(map[string]any)
	if notice["level"] != "error" || int(d["dropped"].(float64))+n != 3*logQueue {
		t.Errorf("notice %v after %d forwarded, want level error counting the %d others", notice, n, 3*logQueue-n)
	}
}
