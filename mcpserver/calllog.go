package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/host"

	"github.com/aios-host/aios-host/internal/wire"
)

// Forwarding a call's log messages to the MCP client (the server declares
// the logging capability): what the providers serving a tools/call log
// while it runs — its own provider and those of the nested calls it makes
// — is sent to the client that made it as notifications/message, at the
// level the client asked for and above: with protocol versions up to
// 2025-11-25 the session's, set by logging/setLevel; from 2026-07-28 the
// request's own, _meta "io.modelcontextprotocol/logLevel". Nothing is sent
// without one (the go-sdk decides, from the request's context). Over streamable HTTP they go on
// the request's own stream. A provider's log call never waits for the
// client: the messages wait in a queue of logQueue, and those past it are
// dropped and counted, said in one message at the end of the call (a
// warning, or of the highest level dropped when above). All
// queued messages are sent before the call's result.

// The level is also applied before a message is queued: messages under
// it are never sent, and filled the queue, so that a warning logged after
// many debug lines was dropped, and the client told that the debug lines
// it never asked for were not forwarded.

// logQueue is how many of a call's messages may wait to be sent.
const logQueue = 256

// maxLogText is where a forwarded message is cut (the runtimes cut a
// guest's lines at 4 KiB; a native provider's are not).
const maxLogText = 8 << 10

type logForwarder struct {
	ss  *mcpsdk.ServerSession
	ctx context.Context // the request's: the go-sdk routes by it
	mu  sync.Mutex
	q   chan *mcpsdk.LoggingMessageParams
	// started: the sending goroutine runs (at the first message);
	// closed: the call has ended, later messages (a provider's goroutine
	// outliving its call) are not sent.
	started, closed bool
	dropped         int
	droppedLevel    mcpsdk.LoggingLevel // the highest of the dropped
	done            chan struct{}
	tool            string
	// level is the client's level at the time of a message ("": send
	// none).
	level func() mcpsdk.LoggingLevel
}

func newLogForwarder(ctx context.Context, ss *mcpsdk.ServerSession, tool string, level func() mcpsdk.LoggingLevel) *logForwarder {
	if ss == nil || level == nil {
		return nil
	}
	return &logForwarder{ss: ss, ctx: ctx, tool: tool, level: level}
}

// log is the call's host.CallLogFunc.
func (f *logForwarder) log(e host.CallLog) {
	if !levelAtLeast(mcpLevel(e.Level), f.level()) {
		return // never sent: it takes no room in the queue
	}
	p := logParams(e)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if !f.started {
		f.started = true
		f.q = make(chan *mcpsdk.LoggingMessageParams, logQueue)
		f.done = make(chan struct{})
		go f.send()
	}
	select {
	case f.q <- p:
	default:
		f.dropped++
		if levelAtLeast(p.Level, f.droppedLevel) || f.droppedLevel == "" {
			f.droppedLevel = p.Level
		}
	}
}

func (f *logForwarder) send() {
	defer close(f.done)
	for p := range f.q {
		// An error is the connection's: the result cannot be sent
		// either, and the go-sdk says so.
		_ = f.ss.Log(f.ctx, p)
	}
}

// close ends forwarding, when the call has returned and before its result
// is sent: it waits for the queued messages to be sent, unless giveUp is
// closed (the server is closing): a client that stopped reading its
// stream would hold the call, and Close, until a write failed
// (writeTimeout). The messages still queued are then given up, as the
// call's answer is; the sending goroutine ends when its write fails.
func (f *logForwarder) close(giveUp <-chan struct{}) {
	f.mu.Lock()
	f.closed = true
	started, dropped, level := f.started, f.dropped, f.droppedLevel
	if started {
		close(f.q)
	}
	f.mu.Unlock()
	if !started {
		return
	}
	select {
	case <-f.done:
	case <-giveUp:
		return
	}
	if dropped > 0 {
		// A warning, or at the level of the highest dropped when above
		// (only messages at the client's level are queued): a client at
		// level error would not hear of the errors it lost.
		if !levelAtLeast(level, "warning") {
			level = "warning"
		}
		_ = f.ss.Log(f.ctx, &mcpsdk.LoggingMessageParams{Level: level, Logger: f.tool, Data: map[string]any{
			"message": fmt.Sprintf("%d log messages of this call of %s were not forwarded: more than %d waited to be sent", dropped, f.tool, logQueue),
			"tool":    f.tool,
			"dropped": dropped,
		}})
	}
}

// levelAtLeast says whether a message of level l is sent to a client at
// level min (none when min is "").
func levelAtLeast(l, min mcpsdk.LoggingLevel) bool {
	i, j := slices.Index(mcpLogLevels, l), slices.Index(mcpLogLevels, min)
	return j >= 0 && i >= j
}

// logLevelOf is the level the go-sdk applies to the messages of req's
// call: from 2026-07-28 (the request's _meta names that protocol version)
// the request's own (_meta "io.modelcontextprotocol/logLevel"; none
// without it), else its session's, set by logging/setLevel (read at each
// message, as it may change while the call runs). It is nil when no
// message of the call can be sent (a request's own level left out): the
// call then has no forwarder at all.
func (s *Server) logLevelOf(req *mcpsdk.CallToolRequest) func() mcpsdk.LoggingLevel {
	if req.Params != nil {
		if v, _ := req.Params.Meta[mcpsdk.MetaKeyProtocolVersion].(string); v >= sessionlessVersion {
			l, _ := req.Params.Meta[mcpsdk.MetaKeyLogLevel].(string)
			if l == "" {
				return nil
			}
			return func() mcpsdk.LoggingLevel { return mcpsdk.LoggingLevel(l) }
		}
	}
	ss := req.Session
	return func() mcpsdk.LoggingLevel {
		s.levelMu.Lock()
		defer s.levelMu.Unlock()
		return s.logLevels[ss]
	}
}

// setSessionLogLevel notes the level ss set with logging/setLevel, and
// forgets those of the sessions that have ended.
func (s *Server) setSessionLogLevel(ss *mcpsdk.ServerSession, l mcpsdk.LoggingLevel) {
	live := map[*mcpsdk.ServerSession]bool{}
	for ls := range s.mcp.Sessions() {
		live[ls] = true
	}
	s.levelMu.Lock()
	defer s.levelMu.Unlock()
	if s.logLevels == nil {
		s.logLevels = map[*mcpsdk.ServerSession]mcpsdk.LoggingLevel{}
	}
	for o := range s.logLevels {
		if !live[o] {
			delete(s.logLevels, o)
		}
	}
	s.logLevels[ss] = l
}

// logParams is e as MCP's notifications/message params: level mapped from
// slog's, logger the tool, data an object with the message, the provider,
// tool and call id, and the record's other attributes.
func logParams(e host.CallLog) *mcpsdk.LoggingMessageParams {
	data := make(map[string]any, len(e.Attrs)+4)
	for k, v := range e.Attrs {
		data[k] = logValue(v)
	}
	msg := e.Message
	if len(msg) > maxLogText {
		msg = wire.CutText(msg, maxLogText, "")
		data["truncated"] = true
	}
	data["message"] = msg
	data["provider"] = e.Provider
	data["tool"] = e.Tool
	data["call_id"] = e.CallID
	return &mcpsdk.LoggingMessageParams{Level: mcpLevel(e.Level), Logger: e.Tool, Data: data}
}

func mcpLevel(l slog.Level) mcpsdk.LoggingLevel {
	switch {
	case l < slog.LevelInfo:
		return "debug"
	case l < slog.LevelWarn:
		return "info"
	case l < slog.LevelError:
		return "warning"
	}
	return "error"
}

// logValue keeps JSON's own kinds and writes others as text (an error
// would be {}).
func logValue(v any) any {
	switch v := v.(type) {
	case nil, string, bool, int64, uint64, int:
		return v
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Sprint(v) // JSON has no such number
		}
		return v
	case fmt.Stringer:
		return v.String()
	case error:
		return v.Error()
	}
	return fmt.Sprint(v)
}

// quoteCut is s quoted (%q), cut at 100 bytes ("…" after the quote): a
// client's input quoted whole in an error could make the answer longer
// than a client reads (each U+200B sent is 7 bytes quoted).
func quoteCut(s string) string {
	if c := wire.CutText(s, 100, ""); len(c) < len(s) {
		return fmt.Sprintf("%q…", c)
	}
	return fmt.Sprintf("%q", s)
}
