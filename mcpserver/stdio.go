package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/internal/jsonmember"
	"github.com/aios-host/aios-host/internal/wire"
)

// MaxLineBytes bounds one JSON-RPC message on stdio.
const MaxLineBytes = mcpsdk.DefaultMaxLineLength

// batchesRemoved is the first MCP version without JSON-RPC batches.
const batchesRemoved = "2025-06-18"

// StdioTransport is the transport of `aios-host mcp`: newline-delimited
// JSON-RPC on in and out. Unlike the go-sdk's own, which ends the session
// at the first line it cannot decode, it answers such a line with a
// JSON-RPC error — -32700 for text that is not JSON, -32600 for JSON that
// is not a JSON-RPC message, -32600 for a line over MaxLineBytes (with the
// request's id when the line's first 64 KiB give it) — and
// keeps serving. Neither stream is closed.
//
// JSON-RPC batches (arrays) are served while the negotiated protocol
// version allows them (before 2025-06-18, or before initialize). A batch
// is refused as a whole — every request in it answered with -32600, every
// element that is not a JSON-RPC message with -32600 and id null, in one
// array — when the session negotiated 2025-06-18 or later, when it comes
// before the answer to initialize, when it holds initialize, an element
// that is not a JSON-RPC message, a request id twice, or the id of an
// earlier request still in flight. `[]` is answered with one -32600 error.
// A request alone with the id of a request still in flight is answered
// with -32600 too (the go-sdk drops it without a word).
//
// A request the client cancels (notifications/cancelled) gets no response,
// as MCP asks, unless it came in a batch (whose response array must be
// whole). Error responses the go-sdk would send with code 0 get a standard
// code (see fixErrorCode).
//
// When in ends (the client closed it: the MCP stdio shutdown), the
// requests read before are answered first, for at most DefaultStdinDrain:
// the go-sdk alone cancels them at once and, writing nothing once its
// input has ended, answers none, so `printf … | aios-host mcp` printed
// nothing. The calls still running when the drain ends are cancelled.
func StdioTransport(in io.Reader, out io.Writer) mcpsdk.Transport {
	return newStdioTransport(in, out, DefaultStdinDrain)
}

// Stdio is StdioTransport with the server's mcp.stdin_drain.
func (s *Server) Stdio(in io.Reader, out io.Writer) mcpsdk.Transport {
	drain := s.cfg.StdinDrain
	if drain <= 0 {
		drain = DefaultStdinDrain
	}
	return newStdioTransport(in, out, drain)
}

func newStdioTransport(in io.Reader, out io.Writer, drain time.Duration) mcpsdk.Transport {
	st := newStdioState()
	w := newLockedWriter(out)
	return &stdioTransport{st: st, w: w,
		io: &mcpsdk.IOTransport{Reader: &jsonLines{r: bufio.NewReaderSize(in, 64<<10), w: w, st: st, drain: drain}, Writer: w}}
}

// stdioState is what the line filter (jsonLines, the input side) and the
// connection (stdioConn, the output side) know of the session.
type stdioState struct {
	mu sync.Mutex
	// version is the protocol version initialize negotiated ("" before).
	version string
	// initializing holds the ids of initialize requests not answered yet.
	initializing map[jsonrpc.ID]struct{}
	// calls holds the requests (not of a batch) not answered yet, and
	// whether the client cancelled each.
	calls map[jsonrpc.ID]bool
	// batched holds the requests of forwarded batches not answered yet.
	batched map[jsonrpc.ID]struct{}
	// inits counts the initialize requests received; firstInit is the id
	// of the first.
	inits     int
	firstInit jsonrpc.ID
	// open holds the ids of the requests passed on (alone or in a batch)
	// whose answer has not been written (or dropped) yet; idle, while
	// someone waits for open to empty (waitAnswered), is closed when it
	// does.
	open map[jsonrpc.ID]struct{}
	idle chan struct{}
	// busy holds the ids of the requests passed on that the go-sdk has not
	// answered: as it does, an id leaves it before its answer is written,
	// so that a client may use it again as soon as it has the answer.
	busy map[jsonrpc.ID]struct{}
}

func newStdioState() *stdioState {
	return &stdioState{initializing: map[jsonrpc.ID]struct{}{}, calls: map[jsonrpc.ID]bool{}, batched: map[jsonrpc.ID]struct{}{},
		open: map[jsonrpc.ID]struct{}{}, busy: map[jsonrpc.ID]struct{}{}}
}

// settled notes that the answer to id was written or dropped.
func (s *stdioState) settled(id jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.open, id)
	if len(s.open) == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
}

// waitAnswered waits until every request passed on has been answered,
// or until timeout or abort.
func (s *stdioState) waitAnswered(timeout time.Duration, abort <-chan struct{}) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		s.mu.Lock()
		if len(s.open) == 0 {
			s.mu.Unlock()
			return
		}
		if s.idle == nil {
			s.idle = make(chan struct{})
		}
		idle := s.idle
		s.mu.Unlock()
		select {
		case <-idle:
		case <-t.C:
			return
		case <-abort:
			return
		}
	}
}

// reused says whether msg is a request whose id is that of a request
// passed on and not answered yet.
func (s *stdioState) reused(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, busy := s.busy[req.ID]
	return busy
}

// received notes a message the filter passes on (outside a batch, or a
// batch's notification).
func (s *stdioState) received(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.IsCall() {
		s.open[req.ID] = struct{}{}
		s.busy[req.ID] = struct{}{}
	}
	switch {
	case req.IsCall() && req.Method == "initialize":
		if s.inits++; s.inits == 1 {
			s.firstInit = req.ID
		}
		if s.version == "" {
			s.initializing[req.ID] = struct{}{}
		}
	case req.IsCall():
		s.calls[req.ID] = false
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) != nil {
			return
		}
		if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id.IsValid() {
			if _, inFlight := s.calls[id]; inFlight {
				s.calls[id] = true
			}
		}
	}
}

// answered notes a response the server sends, and says whether to drop
// it (the client cancelled its request).
func (s *stdioState) answered(resp *jsonrpc.Response) (drop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.busy, resp.ID)
	if _, ok := s.initializing[resp.ID]; ok {
		delete(s.initializing, resp.ID)
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if resp.Error == nil && s.version == "" && json.Unmarshal(resp.Result, &r) == nil && r.ProtocolVersion != "" {
			s.version = r.ProtocolVersion
		}
	}
	if cancelled, ok := s.calls[resp.ID]; ok {
		delete(s.calls, resp.ID)
		return cancelled
	}
	delete(s.batched, resp.ID)
	return false
}

// stdioTransport connects the go-sdk's IOTransport through stdioConn.
type stdioTransport struct {
	st *stdioState
	w  *lockedWriter
	io *mcpsdk.IOTransport
}

// Connect connects the session; when ctx (Run's) ends, writes to the
// client stop blocking (see lockedWriter).
func (t *stdioTransport) Connect(ctx context.Context) (mcpsdk.Connection, error) {
	c, err := t.io.Connect(ctx)
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, t.w.abort)
	return &stdioConn{Connection: c, st: t.st}, nil
}

// stdioConn sees each response before the go-sdk writes it: it drops
// those of cancelled requests and fixes error codes. It hides the
// go-sdk connection's own batch handling (which would end the session at
// a batch after 2025-06-18): jsonLines decides on batches.
type stdioConn struct {
	mcpsdk.Connection
	st *stdioState
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		defer c.st.settled(resp.ID)
		if c.st.answered(resp) {
			return nil
		}
		msg = c.st.explainDuplicate(fixResponse(resp))
	}
	return c.Connection.Write(ctx, msg)
}

// explainDuplicate rewrites the go-sdk's refusal of the client's first
// initialize as a duplicate: the go-sdk takes the session's parameters
// from the first request of the session-less 2026-07-28 protocol (its
// _meta names the version and the client's capabilities) and then refuses
// initialize as `duplicate "initialize" received`, though the client sent
// none.
func (s *stdioState) explainDuplicate(resp *jsonrpc.Response) *jsonrpc.Response {
	var we *jsonrpc.Error
	if resp.Error == nil || !errors.As(resp.Error, &we) || we.Message != `duplicate "initialize" received` {
		return resp
	}
	s.mu.Lock()
	first := s.inits > 0 && s.firstInit == resp.ID && s.version == ""
	s.mu.Unlock()
	if !first {
		return resp
	}
	fixed := *resp
	fixed.Error = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
		"initialize after a request of the session-less protocol %s (its _meta %q): this connection follows that protocol since then, whose clients send no initialize; start a new connection to initialize", sessionlessVersion, mcpsdk.MetaKeyProtocolVersion), Data: we.Data}
	return &fixed
}

// lockedWriter serializes our error answers with the go-sdk's writes (each
// of which is one whole line), and lets the session end while a write is
// stuck: a client that stops reading stdout fills the pipe, and the go-sdk
// closes a session only once every request in flight has written its
// answer, so Run (aios-host mcp on SIGTERM) would wait for ever. Once
// abort is called (Run's ctx is done) a write in progress and every later
// one fail; a write stuck in the pipe is left to its goroutine.
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	aborted chan struct{}
	once    sync.Once
}

func newLockedWriter(w io.Writer) *lockedWriter {
	return &lockedWriter{w: w, aborted: make(chan struct{})}
}

// errStdoutAbandoned is what a write answers once the session has ended.
var errStdoutAbandoned = errors.New("mcp stdio: the session ended before the client read this message")

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.aborted:
		return 0, errStdoutAbandoned
	default:
	}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := l.w.Write(p)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return r.n, r.err
	case <-l.aborted:
		return 0, errStdoutAbandoned
	}
}

func (l *lockedWriter) abort() { l.once.Do(func() { close(l.aborted) }) }

func (*lockedWriter) Close() error { return nil }

// jsonLines passes on the lines that decode as JSON-RPC messages and
// answers the others.
type jsonLines struct {
	r       *bufio.Reader
	w       *lockedWriter
	st      *stdioState
	pending []byte
	// drain bounds how long the end of input waits for the answers to
	// the requests read before (see StdioTransport).
	drain time.Duration
}

func (*jsonLines) Close() error { return nil }

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.pending) == 0 {
		line, tooLong, err := j.readLine()
		if tooLong {
			// line is the head of the message: its id, when given
			// before the bulk, answers the request, which would
			// otherwise wait for ever on a client without a timeout.
			j.answer(headID(line), jsonrpc.CodeInvalidRequest, fmt.Sprintf(
				"invalid request: message longer than %d bytes (16 MiB), the most one stdio line may hold; pass bulk data as a Space ObjectId (aios-host space put) rather than in the arguments", MaxLineBytes))
		} else if t := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), utf8BOM)); len(t) > 0 {
			if t[0] == '[' && json.Valid(t) && utf8.Valid(t) {
				j.batch(t)
			} else if msg, code, text, id := check(t); code != 0 {
				j.answer(id, code, text)
			} else if j.st.reused(msg) {
				// The go-sdk drops a request whose id is in flight
				// without a word: its client would wait for ever.
				id := idOf(t)
				j.answer(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: request id %s of an earlier request is still in flight; give each request of a session an id of its own", id))
			} else {
				j.st.received(msg)
				j.pending = append(t, '\n')
			}
		}
		if err != nil {
			if len(j.pending) > 0 {
				break
			}
			if errors.Is(err, io.EOF) {
				// The go-sdk cancels the requests in flight at the
				// end of input and writes nothing after it.
				j.st.waitAnswered(j.drain, j.w.aborted)
			}
			return 0, err
		}
	}
	n := copy(p, j.pending)
	j.pending = j.pending[n:]
	return n, nil
}

// utf8BOM is U+FEFF in UTF-8: a client writing through an encoder that
// emits one (.NET's Encoding.UTF8) starts its stream with it. RFC 8259
// lets a parser ignore it, and it is ignored before a message.
var utf8BOM = []byte("\ufeff")

// readLine reads one line, bounded by MaxLineBytes: of a longer line
// (tooLong) it returns the first headBytes, the rest is discarded.
func (j *jsonLines) readLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := j.r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxLineBytes {
				tooLong, line = true, append([]byte(nil), line[:min(len(line), headBytes)]...)
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// headBytes is how much of a line over MaxLineBytes is kept to find its
// request id.
const headBytes = 64 << 10

// headID is the id of the request whose line begins with head (cut
// anywhere), when head gives it at the top level of the object before
// anything cuts it off: a string, or an integer of at most 2^53 (an MCP
// id the go-sdk would have kept); else nil.
func headID(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for {
		k, err := dec.Token()
		key, ok := k.(string)
		if err != nil || !ok {
			return nil
		}
		if key == "id" {
			v, err := dec.Token()
			if err != nil {
				return nil
			}
			switch x := v.(type) {
			case string:
				b, _ := json.Marshal(x)
				return b
			case json.Number:
				if n, err := strconv.ParseInt(string(x), 10, 64); err == nil && n <= maxExactID && n >= -maxExactID {
					return json.RawMessage(x)
				}
			}
			return nil
		}
		// Skip the member's value, however deep.
		depth := 0
		for {
			t, err := dec.Token()
			if err != nil {
				return nil
			}
			switch t {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
			if depth == 0 {
				break
			}
		}
	}
}

// check decodes a line that is not a batch. On failure it returns a
// JSON-RPC error code and message (code 0 when the line is fine), with the
// request id when one can be read.
func check(line []byte) (jsonrpc.Message, int64, string, json.RawMessage) {
	if !json.Valid(line) {
		msg, _ := wire.JSONSyntax(line)
		return nil, jsonrpc.CodeParseError, "parse error: the line is not JSON: " + msg, nil
	}
	// JSON text is UTF-8 (RFC 8259 §8.1): encoding/json reads an invalid
	// byte as U+FFFD, so {"a\xff":1,"a\xfe":2} would become one member
	// name twice and a member would be lost without a word (as on the
	// host's own socket, server/rpc.go).
	if i := wire.InvalidUTF8(line); i >= 0 {
		return nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: the line is not valid UTF-8 (byte 0x%02x at offset %d)", line[i], i), nil
	}
	if i := wire.LoneSurrogate(line); i >= 0 {
		return nil, jsonrpc.CodeParseError, "parse error: " + wire.LoneSurrogateMessage(line, i), nil
	}
	msg, err := decodeMessage(line)
	if err != nil {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error(), idOf(line)
	}
	if p := idProblem(msg, line); p != "" {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + p, idOf(line)
	}
	return msg, 0, "", nil
}

// maxExactID is the largest integer id the go-sdk answers with the same
// id: it reads a numeric id as a float64.
const maxExactID = 1 << 53

// idProblem says why the go-sdk would not answer request msg (raw, as
// sent) with its own id, "" when it would. MCP ids are strings or
// integers; the go-sdk reads a number as a float64 and truncates it, so
// 1.5 would be answered as 1 and 9007199254740993 as 9007199254740992 — a
// client could take the answer for another of its requests — and it takes
// a request with id null for a notification, which is never answered.
func idProblem(msg jsonrpc.Message, raw []byte) string {
	if p := jsonmember.Problem(raw, envelopeMembers, "member"); p != "" {
		return p
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return ""
	}
	if req.Method == "tools/call" {
		if p := jsonmember.Problem(req.Params, callMembers, "member"); p != "" {
			return "params: " + p
		}
	}
	if id := bytes.TrimSpace(idOf(raw)); string(id) == "null" {
		return "id must not be null (MCP: a string or an integer)"
	}
	return numberIDProblem(raw)
}

// numberIDProblem says why raw's id, a number, is no MCP id ("" when it is
// none or fits). A plain integer (no fraction, no exponent) of at most
// 2^53 is one the go-sdk reads exactly.
func numberIDProblem(raw []byte) string {
	id := bytes.TrimSpace(idOf(raw))
	if len(id) == 0 || (id[0] != '-' && (id[0] < '0' || id[0] > '9')) {
		return "" // a string, null, or not a number: DecodeMessage refused it
	}
	if n, err := strconv.ParseInt(string(id), 10, 64); err != nil || n > maxExactID || n < -maxExactID {
		shown := string(id)
		if len(shown) > 40 {
			shown = shown[:20] + "…" + shown[len(shown)-10:] + fmt.Sprintf(" (%d digits)", len(shown))
		}
		return fmt.Sprintf("id %s is not an integer of at most 2^53 in magnitude written without a fraction or exponent (MCP: a string or an integer)", shown)
	}
	return ""
}

// decodeMessage is jsonrpc.DecodeMessage, whose error for a number id
// past a float64 (1e999, 400 digits) spoke of Go ("cannot unmarshal …
// into Go struct field jsonrpc2.wireDecode.id of type float64"): such an
// id is refused as every other inexact one is (numberIDProblem).
func decodeMessage(raw []byte) (jsonrpc.Message, error) {
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		if p := numberIDProblem(raw); p != "" {
			return nil, errors.New(p)
		}
		if p := idTypeProblem(raw); p != "" {
			return nil, errors.New(p)
		}
	}
	return msg, err
}

// idTypeProblem says why raw's id, a boolean, array or object, is no MCP
// id ("" when it is none of those): the go-sdk's error named a Go type
// ("parse error: invalid ID type []interface {}").
func idTypeProblem(raw []byte) string {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &probe) != nil {
		return ""
	}
	id := bytes.TrimSpace(probe.ID)
	if len(id) == 0 || (id[0] != 't' && id[0] != 'f' && id[0] != '[' && id[0] != '{') {
		return ""
	}
	shown := string(id)
	if len(shown) > 40 {
		shown = wire.CutText(shown, 30, "") + fmt.Sprintf("… (%d bytes)", len(shown))
	}
	return fmt.Sprintf("id must be a string or an integer (MCP), got %s", shown)
}

// idOf is the "id" member of a JSON object when it is a string or a
// number (nil otherwise: an object, array or boolean is no id, and
// JSON-RPC answers such a request with id null).
func idOf(raw []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(raw, &probe)
	if id := bytes.TrimSpace(probe.ID); len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9' || string(id) == "null") {
		return probe.ID
	}
	return nil
}

// batch handles a line holding a JSON array: it passes on a batch the
// session may send, its notifications and responses as lines of their own
// and its requests as one batch (the go-sdk would wait for a response to
// each notification of a batch, and never answer it), or refuses it.
func (j *jsonLines) batch(line []byte) {
	if n := wire.ArrayLen(line); n > maxBatch {
		j.answer(nil, jsonrpc.CodeInvalidRequest, batchTooLong(n))
		return
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil || len(raws) == 0 {
		j.answer(nil, jsonrpc.CodeInvalidRequest, "invalid request: empty batch")
		return
	}
	type elem struct {
		raw json.RawMessage
		msg jsonrpc.Message
		err error
		id  json.RawMessage // of a request
	}
	elems := make([]elem, len(raws))
	seen := map[jsonrpc.ID]bool{}
	why := "" // why the whole batch is refused
	j.st.mu.Lock()
	switch {
	case j.st.version >= batchesRemoved:
		why = fmt.Sprintf("invalid request: JSON-RPC batches are not supported in MCP %s and later (this session: %s)", batchesRemoved, j.st.version)
	case len(j.st.initializing) > 0:
		why = "invalid request: batch sent before the response to initialize"
	}
	for i, raw := range raws {
		e := &elems[i]
		e.raw = bytes.TrimSpace(raw)
		e.msg, e.err = decodeMessage(e.raw)
		if p := idProblem(e.msg, e.raw); e.err == nil && p != "" {
			e.msg, e.err = nil, errors.New(p)
		}
		if e.err != nil {
			if why == "" {
				why = fmt.Sprintf("invalid request: batch element %d is not a JSON-RPC message; the batch was not processed", i)
			}
			continue
		}
		req, ok := e.msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			continue
		}
		e.id = idOf(e.raw)
		_, inBatch := j.st.batched[req.ID]
		_, inCall := j.st.calls[req.ID]
		switch {
		case why != "":
		case req.Method == "initialize":
			why = "invalid request: initialize must not be part of a JSON-RPC batch"
		case seen[req.ID]:
			why = fmt.Sprintf("invalid request: request id %s appears twice in the batch", e.id)
		case inBatch || inCall:
			why = fmt.Sprintf("invalid request: request id %s of an earlier request is still in flight", e.id)
		}
		seen[req.ID] = true
	}
	if why == "" {
		for _, e := range elems {
			if req, ok := e.msg.(*jsonrpc.Request); ok && req.IsCall() {
				j.st.batched[req.ID] = struct{}{}
				j.st.open[req.ID] = struct{}{}
				j.st.busy[req.ID] = struct{}{}
			}
		}
	}
	j.st.mu.Unlock()

	if why != "" {
		var answers []json.RawMessage
		for _, e := range elems {
			switch req, _ := e.msg.(*jsonrpc.Request); {
			case e.err != nil:
				answers = append(answers, errorJSON(nil, jsonrpc.CodeInvalidRequest, "invalid request: "+e.err.Error()))
			case req != nil && req.IsCall():
				answers = append(answers, errorJSON(e.id, jsonrpc.CodeInvalidRequest, why))
			}
		}
		if len(answers) > 0 { // JSON-RPC: nothing at all rather than []
			b, _ := json.Marshal(answers)
			_, _ = j.w.Write(append(b, '\n'))
		}
		return
	}
	var calls [][]byte
	at := -1 // where the requests go among the lines passed on
	var lines [][]byte
	for _, e := range elems {
		if req, ok := e.msg.(*jsonrpc.Request); ok && req.IsCall() {
			if at < 0 {
				at = len(lines)
				lines = append(lines, nil)
			}
			calls = append(calls, e.raw)
			continue
		}
		j.st.received(e.msg) // a notification (notifications/cancelled...) or a response
		lines = append(lines, e.raw)
	}
	if at >= 0 {
		lines[at] = append(append([]byte{'['}, bytes.Join(calls, []byte{','})...), ']')
	}
	for _, l := range lines {
		j.pending = append(append(j.pending, l...), '\n')
	}
}

func (j *jsonLines) answer(id json.RawMessage, code int64, msg string) {
	_, _ = j.w.Write(append(errorJSON(id, code, msg), '\n'))
}

// errorJSON is a JSON-RPC error response (id null when id is empty).
func errorJSON(id json.RawMessage, code int64, msg string) json.RawMessage {
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	r := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, msg}}
	if len(id) == 0 || !json.Valid(id) {
		r.ID = json.RawMessage("null")
	}
	b, _ := json.Marshal(r)
	return b
}

// fixResponse returns resp with a standard error code where the go-sdk
// leaves code 0 (see fixErrorCode), and with params that did not decode
// said in words (see explainParams).
func fixResponse(resp *jsonrpc.Response) *jsonrpc.Response {
	if resp.Error == nil {
		return resp
	}
	// The go-sdk encodes an error that is (or wraps) a *jsonrpc.Error with
	// its code, any other with code 0.
	var we *jsonrpc.Error
	if errors.As(resp.Error, &we) && we.Code != 0 {
		if m, ok := explainParams(resp.Error.Error()); ok && we.Code == jsonrpc.CodeInvalidParams {
			fixed := *resp
			fixed.Error = &jsonrpc.Error{Code: we.Code, Message: m, Data: we.Data}
			return &fixed
		}
		return resp
	}
	e := &jsonrpc.Error{Message: resp.Error.Error()}
	if direct, ok := resp.Error.(*jsonrpc.Error); ok {
		e.Message, e.Data = direct.Message, direct.Data
	}
	e.Code = fixErrorCode(e.Message)
	if m, ok := explainParams(e.Message); ok {
		e.Message = m
	}
	fixed := *resp
	fixed.Error = e
	return &fixed
}

// fixErrorCode is the JSON-RPC code of an error the go-sdk (v1.8) answers
// with code 0, which is no standard code: a request before initialize and
// a second initialize are invalid requests (-32600); params that do not
// decode (a protocolVersion that is not a string, say) are invalid params
// (-32602); initialize with params null is an invalid request (-32600, the
// go-sdk's own code for a request of another method without params);
// anything else is an internal error (-32603).
func fixErrorCode(msg string) int64 {
	switch {
	case strings.Contains(msg, "invalid during session initialization"), strings.HasPrefix(msg, "duplicate "),
		strings.HasSuffix(msg, `missing required "params"`): // initialize with params null; the go-sdk's code for other methods
		return jsonrpc.CodeInvalidRequest
	case strings.HasPrefix(msg, "handling '") && strings.Contains(msg, "unmarshal"):
		return jsonrpc.CodeInvalidParams
	default:
		return jsonrpc.CodeInternalError
	}
}

// explainParams rewrites the go-sdk's refusal of params that do not
// decode ("handling 'tools/call': invalid params: unmarshaling "<the
// params>" into a *mcp.CallToolParamsRaw: json: cannot unmarshal … into Go
// struct field mcp.CallToolParamsRaw._meta of type map[string]interface
// {}") as `invalid params of tools/call: "_meta" must be an object, got a
// string`. The go-sdk's message quotes the params whole, escaped twice
// over on the wire: 5 MiB of arguments with a bad _meta came back as an
// answer of over 16 MiB, more than a client reads. False when msg is no
// such refusal.
func explainParams(msg string) (string, bool) {
	rest, ok := strings.CutPrefix(msg, "handling '")
	if !ok {
		return "", false
	}
	method, rest, ok := strings.Cut(rest, "': invalid params: unmarshaling ")
	if !ok {
		return "", false
	}
	prefix := "invalid params of " + method + ": "
	i := strings.LastIndex(rest, ": json: ")
	if i < 0 {
		return prefix + "the params do not decode", true
	}
	why := rest[i+len(": json: "):]
	value, into, ok := strings.Cut(strings.TrimPrefix(why, "cannot unmarshal "), " into Go ")
	if !ok || !strings.HasPrefix(why, "cannot unmarshal ") {
		return prefix + why, true // nesting too deep, a syntax error: no Go in them
	}
	// value is the start of the value given, quoted, or "number N
	// overflows".
	given, quoted := "", false
	if v, err := strconv.Unquote(value); err == nil && v != "" {
		given, quoted = v, true
	} else if n, ok := strings.CutSuffix(strings.TrimPrefix(value, "number "), " overflows"); ok {
		given = n
	}
	what := func(must string) string {
		switch {
		case given == "":
			return " must be " + must
		case quoted && jsonKind(given[0]) != must:
			return " must be " + must + ", got " + jsonKind(given[0])
		}
		// The right kind: a number out of range (1e400 for a float64),
		// given with what follows it.
		n := strings.IndexFunc(given, func(r rune) bool { return !strings.ContainsRune("0123456789+-.eE", r) })
		if n < 0 {
			n = len(given)
		}
		return fmt.Sprintf(": the number %s is out of range", given[:n])
	}
	if goType, ok := strings.CutPrefix(into, "value of type "); ok {
		return prefix + "params" + what(goKind(goType)), true
	}
	field, goType, ok := strings.Cut(strings.TrimPrefix(into, "struct field "), " of type ")
	if !ok {
		return prefix + "a member has the wrong type", true
	}
	// field is pkg.Type.member(.member…) (Type may end with a map's type:
	// "mcp.CallToolParamsRawmap[string]interface {}._meta.key"): the
	// members are the JSON path.
	if parts := strings.SplitN(field, ".", 3); len(parts) == 3 {
		field = parts[2]
	}
	return prefix + strconv.Quote(field) + what(goKind(goType)), true
}

// jsonKind names the JSON value that begins with c.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// goKind names the JSON value a Go type of the go-sdk's params takes.
func goKind(t string) string {
	t = strings.TrimLeft(t, "*")
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean"
	case strings.HasPrefix(t, "[]"), strings.HasPrefix(t, "["):
		return "an array"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a number"
	}
	return "an object" // a map or a struct
}
