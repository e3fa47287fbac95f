package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/aios-host/aios-host/internal/linebudget"
	"github.com/aios-host/aios-host/internal/wire"
)

// A server's log messages (notifications/message). The TypeScript and
// Python SDKs' servers send them whatever the client asked, the go-sdk's
// once the client set a level; the bridge dropped them all. They go to the
// log of the call in flight when there is one (the host forwards that to
// the MCP client that made the call, as the log of any provider serving
// it), else to the bridge's log, tagged with the server, cut at
// maxStderrLine bytes and bounded as its stderr lines are.

// serverLogs bounds a server's log messages as its stderr lines are.
type serverLogs struct {
	mu     sync.Mutex
	budget *linebudget.Budget
}

func (s *server) allowLog() bool {
	s.logs.mu.Lock()
	if s.logs.budget == nil {
		log, name := s.b.log, s.name
		s.logs.budget = linebudget.New(stderrLinesPerSecond, func(n int) {
			log.Warn("mcp server log messages suppressed", "server", name, "messages", n,
				"limit", fmt.Sprintf("%d messages a second per server", stderrLinesPerSecond))
		})
	}
	b := s.logs.budget
	s.logs.mu.Unlock()
	return b.Allow()
}

// mcpLogLevel maps MCP's (RFC 5424's) levels to slog's.
func mcpLogLevel(l string) slog.Level {
	switch l {
	case "debug":
		return slog.LevelDebug
	case "warning":
		return slog.LevelWarn
	case "error", "critical", "alert", "emergency":
		return slog.LevelError
	}
	return slog.LevelInfo // info, notice, and a level MCP does not define
}

// serverLog logs one notifications/message of the server, params as sent.
func (s *server) serverLog(params json.RawMessage) {
	var p struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	level := mcpLogLevel(p.Level)
	log := s.b.log
	if fl, ok := s.calls.only(); ok {
		log = fl.env.Logger()
	}
	ctx := context.Background()
	if !log.Enabled(ctx, level) || !s.allowLog() {
		return
	}
	var text string
	if json.Unmarshal(p.Data, &text) != nil {
		text = string(p.Data) // not a string: its JSON
	}
	attrs := []any{"server", s.name}
	if p.Logger != "" {
		attrs = append(attrs, "logger", p.Logger)
	}
	if cut := wire.CutText(text, maxStderrLine, ""); len(cut) < len(text) {
		attrs = append(attrs, "truncated_bytes", len(text)-len(cut))
		text = cut
	}
	log.Log(ctx, level, strings.ToValidUTF8(text, "\uFFFD"), attrs...)
}
