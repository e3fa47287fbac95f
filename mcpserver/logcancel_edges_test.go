package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// addLogUntilCancelled registers "logwait": it logs once, says it started,
// waits for its context to end, logs n more lines and returns its error.
func addLogUntilCancelled(t *testing.T, h *host.Host, started chan<- struct{}, n int) {
	t.Helper()
	p := native.New(abi.ProviderInfo{ID: "org.test.logwait"})
	p.MustRegister(abi.ToolDef{Name: "logwait", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			env.Logger().Info("started")
			select {
			case started <- struct{}{}:
			default:
			}
			<-ctx.Done()
			for i := range n {
				env.Logger().Info("after cancel", "i", i)
			}
			return nil, ctx.Err()
		})
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
}

// TestStdioToolLogsEveryOldVersion: with each protocol version before the
// per-request level, logging/setLevel sets the level of the session: a
// call's messages at that level and above arrive as
// notifications/message before its result, the rest not at all.
func TestStdioToolLogsEveryOldVersion(t *testing.T) {
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			h, s := newTestHost(t, "")
			addChatty(t, h, nil)
			waitExported(t, s, "chatty")
			ss := newStdioSession(t, s)
			ss.initialize(v)
			ss.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"warning"}}`)
			if l := ss.mustRead(); l != `{"jsonrpc":"2.0","id":1,"result":{}}` {
				t.Fatalf("setLevel: %s", l)
			}
			ss.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty","arguments":{}}}`)
			var got []map[string]any
			for {
				var m map[string]any
				if err := json.Unmarshal([]byte(ss.mustRead()), &m); err != nil {
					t.Fatal(err)
				}
				got = append(got, m)
				if m["id"] != nil {
					break
				}
			}
			if len(got) != 2 || got[0]["method"] != "notifications/message" || got[1]["result"] == nil {
				t.Fatalf("got %v, want one warning then the result", got)
			}
			p := got[0]["params"].(map[string]any)
			if p["level"] != "warning" || p["data"].(map[string]any)["message"] != "careful" {
				t.Errorf("message %v, want the warning 'careful'", p)
			}
		})
	}
}

// TestCancelledLoggingCallEnds: a call that keeps logging while it is
// cancelled (notifications/cancelled) ends, is recorded Cancelled, gets
// no response, and the session serves on (stdio); over HTTP its POST
// ends too.
func TestCancelledLoggingCallEnds(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		h, s := newTestHost(t, "")
		started := make(chan struct{}, 1)
		addLogUntilCancelled(t, h, started, 3*logQueue)
		waitExported(t, s, "logwait")
		ended := make(chan host.CallStats, 4)
		defer h.OnCall(func(st host.CallStats) { ended <- st })()
		ss := newStdioSession(t, s)
		ss.initialize("2025-06-18")
		ss.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`)
		ss.mustRead()
		ss.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"logwait","arguments":{}}}`)
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			t.Fatal("the tool did not start")
		}
		ss.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"gave up"}}`)
		select {
		case st := <-ended:
			if st.Code != abi.Cancelled {
				t.Errorf("call ended %q, want Cancelled", st.Code)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the cancelled call did not end")
		}
		ss.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		for {
			l := ss.read(30 * time.Second)
			if l == "" {
				t.Fatal("no answer to ping")
			}
			if strings.Contains(l, `"id":2`) {
				t.Errorf("the cancelled request was answered: %s", l)
			}
			if strings.HasPrefix(l, `{"jsonrpc":"2.0","id":3`) {
				break
			}
		}
	})
	t.Run("http", func(t *testing.T) {
		s, base := anonHTTP(t, "")
		started := make(chan struct{}, 1)
		addLogUntilCancelled(t, s.h, started, 3*logQueue)
		waitExported(t, s, "logwait")
		ended := make(chan host.CallStats, 4)
		defer s.h.OnCall(func(st host.CallStats) { ended <- st })()
		sid := initSession(t, base)
		hdr := map[string]string{sessionHeader: sid, versionHeader: "2025-06-18"}
		if a := post(t, base, `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"debug"}}`, hdr); a.status != 200 {
			t.Fatalf("setLevel: %d %s", a.status, a.body)
		}
		posted := make(chan httpAnswer, 1)
		go func() {
			req, _ := http.NewRequest(http.MethodPost, base+Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"logwait","arguments":{}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				posted <- httpAnswer{body: err.Error()}
				return
			}
			defer resp.Body.Close()
			var b strings.Builder
			buf := make([]byte, 4096)
			for {
				n, err := resp.Body.Read(buf)
				b.Write(buf[:n])
				if err != nil {
					break
				}
			}
			posted <- httpAnswer{status: resp.StatusCode, body: b.String()}
		}()
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			t.Fatal("the tool did not start")
		}
		if a := post(t, base, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"gave up"}}`, hdr); a.status != http.StatusAccepted {
			t.Fatalf("notifications/cancelled: %d %s", a.status, a.body)
		}
		select {
		case st := <-ended:
			if st.Code != abi.Cancelled {
				t.Errorf("call ended %q, want Cancelled", st.Code)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the cancelled call did not end")
		}
		select {
		case a := <-posted:
			if strings.Contains(a.body, `"id":1,"result"`) {
				t.Errorf("the cancelled request was answered: %.300s", a.body)
			}
			if !strings.Contains(a.body, "started") {
				t.Errorf("the call's first message was not forwarded: %.300s", a.body)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the POST of the cancelled call did not end")
		}
		done := make(chan struct{})
		go func() { s.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("Close did not return")
		}
	})
}

// TestProgressTokenServedWithoutProgress: a tools/call carrying a
// progressToken is served as any other; no notifications/progress is sent
// (tools have no way to report progress, and MCP makes them optional), as
// docs/mcp.md says, while the call's log messages still arrive before its
// result.
func TestProgressTokenServedWithoutProgress(t *testing.T) {
	h, s := newTestHost(t, "")
	addChatty(t, h, nil)
	waitExported(t, s, "chatty")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}`)
	ss.mustRead()
	ss.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty","arguments":{},"_meta":{"progressToken":"p1"}}}`)
	var methods []string
	for {
		var m map[string]any
		if err := json.Unmarshal([]byte(ss.mustRead()), &m); err != nil {
			t.Fatal(err)
		}
		if m["id"] != nil {
			if m["result"] == nil || m["result"].(map[string]any)["isError"] == true {
				t.Fatalf("call with a progressToken: %v", m)
			}
			break
		}
		methods = append(methods, m["method"].(string))
	}
	if len(methods) != 3 {
		t.Errorf("notifications before the result: %v, want the 3 log messages", methods)
	}
	for _, m := range methods {
		if m != "notifications/message" {
			t.Errorf("notification %s sent, want only notifications/message", m)
		}
	}
}

// TestLogAfterReturnNotSent: a provider goroutine that outlives its call
// and logs afterwards neither reaches the client (the call has answered)
// nor disturbs the session: its message goes to the host log only.
func TestLogAfterReturnNotSent(t *testing.T) {
	h, s := newTestHost(t, "")
	release, lateDone := make(chan struct{}), make(chan struct{})
	p := native.New(abi.ProviderInfo{ID: "org.test.late"})
	p.MustRegister(abi.ToolDef{Name: "late", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(_ context.Context, _ any, env abi.Env) (any, error) {
			l := env.Logger()
			l.Info("in time")
			go func() {
				<-release
				for range 2 * logQueue {
					l.Warn("late")
				}
				close(lateDone)
			}()
			return "ok", nil
		})
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	waitExported(t, s, "late")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`)
	ss.mustRead()
	ss.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"late","arguments":{}}}`)
	if l := ss.mustRead(); !strings.Contains(l, `"in time"`) {
		t.Fatalf("first line %s, want the message logged in time", l)
	}
	if l := ss.mustRead(); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":2,"result"`) {
		t.Fatalf("second line %s, want the result", l)
	}
	close(release)
	select {
	case <-lateDone:
	case <-time.After(30 * time.Second):
		t.Fatal("the goroutine did not log")
	}
	ss.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if l := ss.mustRead(); l != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Fatalf("after the late messages: %s, want the ping's answer alone", l)
	}
}

// TestLogLevelsPerSession: over HTTP each session's level is its own, and
// a call's messages go to the session that made it only: sessions at
// debug, warning and none, calling at once, each get what they asked for.
func TestLogLevelsPerSession(t *testing.T) {
	s, base := anonHTTP(t, "")
	addChatty(t, s.h, nil)
	waitExported(t, s, "chatty")
	levels := []string{"debug", "warning", ""}
	want := []int{4, 1, 0} // chatty: debug, info, warn; whisper: info
	sids := make([]string, len(levels))
	for i, l := range levels {
		sids[i] = initSession(t, base)
		if l != "" {
			if a := post(t, base, `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"`+l+`"}}`,
				map[string]string{sessionHeader: sids[i]}); a.status != 200 {
				t.Fatalf("setLevel: %d %s", a.status, a.body)
			}
		}
	}
	type answer struct {
		i   int
		a   httpAnswer
		err error
	}
	answers := make(chan answer, 3*len(levels))
	for round := range 3 {
		for i := range levels {
			go func() {
				body := `{"jsonrpc":"2.0","id":` + itoa(10+round) + `,"method":"tools/call","params":{"name":"chatty","arguments":{}}}`
				req, _ := http.NewRequest(http.MethodPost, base+Path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set(sessionHeader, sids[i])
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					answers <- answer{i: i, err: err}
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				answers <- answer{i, httpAnswer{resp.StatusCode, resp.Header, string(b)}, err}
			}()
		}
	}
	for range 3 * len(levels) {
		var a answer
		select {
		case a = <-answers:
		case <-time.After(30 * time.Second):
			t.Fatal("a call was not answered")
		}
		if a.err != nil {
			t.Fatal(a.err)
		}
		if msgs := a.a.messages(t); len(msgs) != want[a.i]+1 || msgs[len(msgs)-1]["result"] == nil {
			t.Errorf("session at level %q: %v, want %d messages then the result", levels[a.i], msgs, want[a.i])
		}
	}
}

// TestCancelReachesNestedCall: notifications/cancelled of a call whose
// tool waits in a nested call ends both, each recorded Cancelled, with
// the nested call's log message forwarded before it.
func TestCancelReachesNestedCall(t *testing.T) {
	h, s := newTestHost(t, "")
	started := make(chan struct{}, 1)
	addSlowTool(t, h, started)
	p := native.New(abi.ProviderInfo{ID: "org.test.outer", Capabilities: []string{"CallTool(slow)"}})
	p.MustRegister(abi.ToolDef{Name: "outer", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			env.Logger().Info("calling slow")
			return env.CallTool(ctx, "slow", "", map[string]any{})
		})
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	waitExported(t, s, "outer")
	ended := make(chan host.CallStats, 4)
	defer h.OnCall(func(st host.CallStats) { ended <- st })()
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}`)
	ss.mustRead()
	ss.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"outer","arguments":{}}}`)
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the nested tool did not start")
	}
	if l := ss.mustRead(); !strings.Contains(l, `"calling slow"`) {
		t.Fatalf("first line %s, want the outer tool's message", l)
	}
	ss.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"gave up"}}`)
	got := map[string]abi.ErrorCode{}
	for len(got) < 2 {
		select {
		case st := <-ended:
			got[st.Tool] = st.Code
		case <-time.After(30 * time.Second):
			t.Fatalf("calls ended: %v, want outer and slow", got)
		}
	}
	if got["outer"] != abi.Cancelled || got["slow"] != abi.Cancelled {
		t.Errorf("calls ended %v, want both Cancelled", got)
	}
	ss.ping(3)
}
