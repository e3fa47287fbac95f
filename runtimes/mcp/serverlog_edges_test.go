package mcp

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// logEnv is an Env whose Logger writes to a buffer, as the host's call
// Env tags its logger with the call and forwards it to an MCP client.
type logEnv struct {
	abi.Env
	buf *syncBuffer
}

func (e *logEnv) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(e.buf, &slog.HandlerOptions{Level: slog.LevelDebug})).With("call", "c1")
}

// TestServerLogMessagesReachLog: what a server logs (notifications/message,
// which the TypeScript and Python SDKs send whatever the client asked) while
// it serves a call goes to that call's log, where the host's MCP server
// forwards it to the client that made the call, at the server's level; the
// bridge dropped it without a word. A server that declares logging is told
// level debug (logging/setLevel), as the go-sdk's servers send nothing until
// told one.
func TestServerLogMessagesReachLog(t *testing.T) {
	file := t.TempDir() + "/notes"
	sc := edgeConfig(t, "logs")
	sc.Env["AIOS_MCP_EDGE_FILE"] = file
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"p": sc})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	env := &logEnv{buf: &syncBuffer{}}
	c := &abi.ToolCall{ID: "t", Tool: "mcp-p-logs", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
	if _, err := p.Call(context.Background(), c, env); err != nil {
		t.Fatal(err)
	}
	got := env.buf.String()
	if !strings.Contains(got, "level=WARN") || !strings.Contains(got, `msg="disk almost full"`) ||
		!strings.Contains(got, "server=p") || !strings.Contains(got, "logger=db") {
		t.Errorf("the call's log lacks the server's warning (level WARN, its text, server and logger):\n%s", got)
	}
	if !strings.Contains(got, "level=DEBUG") || !strings.Contains(got, `msg="{\"rows\":3}"`) {
		t.Errorf("the call's log lacks the server's debug message with its JSON data:\n%s", got)
	}
	// Outside a call: the bridge's own log.
	if _, err := call(t, p, "mcp-p-logs", map[string]any{}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if l := logs.String(); !strings.Contains(l, `msg="disk almost full"`) || !strings.Contains(l, "server=p") {
		t.Errorf("the bridge's log lacks the warning of a server with no call's log to take it:\n%s", l)
	}
	var level string
	for _, l := range edgeLines(file) {
		if s, ok := strings.CutPrefix(l, "setLevel "); ok {
			level = s
		}
	}
	if !strings.Contains(level, `"level":"debug"`) {
		t.Errorf("the server was not told level debug: setLevel %q", level)
	}
}
