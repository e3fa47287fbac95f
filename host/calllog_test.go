package host

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestCallLog: what providers log while serving a call made with a
// WithCallLog context — its own provider and a nested call's — reaches the
// CallLogFunc with its level, provider, tool, call id and attributes, at
// every level whatever the host log's level is; the host log still gets
// what its level lets through; a call made without it hands nothing on.
func TestCallLog(t *testing.T) {
	var hostLog bytes.Buffer
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.Agents = map[string]config.Agent{"alice": {Grants: []string{"CallTool(*)"}}}
	h, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(&hostLog, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	p := native.New(abi.ProviderInfo{ID: "org.test.chatty", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "inner", Version: "1.0.0"},
		func(_ context.Context, _ any, env abi.Env) (any, error) {
			env.Logger().Info("inner working")
			return "in", nil
		})
	p.MustRegister(abi.ToolDef{Name: "outer", Version: "1.0.0"},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			l := env.Logger()
			l.Debug("starting", "n", 3)
			l.With("stage", "two").WithGroup("g").Warn("careful", "k", "v")
			if _, err := env.CallTool(ctx, "inner", "", map[string]any{}); err != nil {
				return nil, err
			}
			l.Error("done badly")
			return "out", nil
		})
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var got []CallLog
	ctx := WithCallLog(context.Background(), func(e CallLog) {
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
	})
	call := &abi.ToolCall{Caller: "alice", Tool: "outer", Params: map[string]any{}}
	if _, info, err := h.CallWithInfo(ctx, call); err != nil {
		t.Fatal(err)
	} else if len(got) != 4 {
		t.Fatalf("got %d messages, want 4: %+v", len(got), got)
	} else {
		want := []struct {
			level slog.Level
			msg   string
			tool  string
		}{{slog.LevelDebug, "starting", "outer"}, {slog.LevelWarn, "careful", "outer"}, {slog.LevelInfo, "inner working", "inner"}, {slog.LevelError, "done badly", "outer"}}
		for i, w := range want {
			e := got[i]
			if e.Level != w.level || e.Message != w.msg || e.Tool != w.tool || e.Provider != "org.test.chatty" {
				t.Errorf("message %d: %+v, want %v %q of %s", i, e, w.level, w.msg, w.tool)
			}
			if w.tool == "outer" && e.CallID != info.CallID {
				t.Errorf("message %d: call id %q, want the call's %q", i, e.CallID, info.CallID)
			}
			if w.tool == "inner" && (e.CallID == "" || e.CallID == info.CallID) {
				t.Errorf("nested message: call id %q, want the nested call's own", e.CallID)
			}
		}
		if got[0].Attrs["n"] != int64(3) {
			t.Errorf("debug attrs %v, want n=3", got[0].Attrs)
		}
		if got[1].Attrs["stage"] != "two" || got[1].Attrs["g.k"] != "v" {
			t.Errorf("warn attrs %v, want stage=two and g.k=v", got[1].Attrs)
		}
	}
	// The host log at warn got the warning and the error, not the rest.
	s := hostLog.String()
	if !strings.Contains(s, "careful") || !strings.Contains(s, "done badly") || strings.Contains(s, "starting") || strings.Contains(s, "inner working") {
		t.Errorf("host log (level warn):\n%s", s)
	}

	n := len(got)
	if _, err := h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "outer", Params: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Errorf("a call without WithCallLog handed on %d messages", len(got)-n)
	}
}
