package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/internal/cloexec"
	"github.com/aios-host/aios-host/internal/wire"
)

// What an MCP server sends is untrusted input: every message is checked
// here, at byte level, before the go-sdk decodes it. A message longer than
// max_message_bytes is refused while it is being read (nothing longer is
// ever buffered), and one whose decoded size wire.CheckJSONCost estimates
// above decode_budget (the budget worker frames and WASM guests' messages
// have) is refused before it is decoded: up to 16 MiB of `[{},{},…]` would
// otherwise decode to gigabytes of host memory. A refusal fails the
// connection (stdio: the read side; HTTP: that response) with a
// *refusedError, which the bridge logs, and the calls in flight answer
// TooLarge naming it.

// Defaults of the decode budget.
const (
	// DefaultMaxMessageBytes is the longest message the bridge reads from
	// a server: the go-sdk's own limit of a stdio line and of an SSE event.
	DefaultMaxMessageBytes = mcpsdk.DefaultMaxLineLength
	// DefaultDecodeBudget is the host memory one message may decode to.
	DefaultDecodeBudget = wire.DecodeBudget
)

// typedObjectCost is what one JSON object of a message is charged: the
// go-sdk decodes a result's content blocks (and listed tools, resources)
// into structs of up to about 300 bytes each, not generic maps (64 in the
// estimate), so `{"content":[{},{},…]}` would otherwise decode to several
// times the budget.
const typedObjectCost = 384

// msgBudget is the check of one server's messages.
type msgBudget struct {
	server   string
	maxBytes int   // bytes of one message
	decode   int64 // estimated host memory one message may decode to
	// refused is told of every refusal (server.noteRefusal), may be nil.
	refused func(*refusedError)
	// skipped is told of each tools/list entry left out (dropBadTools),
	// may be nil.
	skipped func(reason string)
	// dropped is told of each answer without an id that no request could
	// be found for (withoutID), may be nil.
	dropped func(reason string)
	// stray is told of each line of a stdio server's stdout that is not
	// a JSON-RPC message, skipped (messageReader), may be nil.
	stray func(reason string)
}

// strayText reports head, the start of a skipped stdout line that is not
// a JSON-RPC message (why: the decoder's error, or that it names no
// "jsonrpc").
func (b *msgBudget) strayText(head string, why error) {
	if b.stray != nil {
		b.stray(notJSONRPC(head, why).Error() + "; the line is skipped")
	}
}

// withoutID is what the go-sdk is handed for msg, an answer without an id
// (answerWithoutID gave its members, top): reqID gives the id of the
// request it answers when the transport says which (the POST whose answer
// it is), else nil. It becomes that request's answer — the server's error
// as it gave it, or, for a result or an error that is no JSON-RPC error
// object, an error saying how the id was given —; without a request it is
// dropped (nil) and logged, as an answer to no request is. The go-sdk
// alone ended the connection at it.
func (b *msgBudget) withoutID(top map[string]json.RawMessage, msg []byte, reqID func() json.RawMessage) []byte {
	var id json.RawMessage
	if reqID != nil {
		id = reqID()
	}
	if id == nil {
		if b.dropped != nil {
			b.dropped(fmt.Sprintf("the server sent an answer %s (%q), which names no request of the bridge's (JSON-RPC answers a message the server could not read with an id null), so it is dropped",
				idWords(top), strings.ToValidUTF8(wire.CutText(string(msg), 300, "…"), "?")))
		}
		return nil
	}
	var we struct {
		Code    *int64  `json:"code"`
		Message *string `json:"message"`
	}
	if e := bytes.TrimSpace(top["error"]); len(e) > 0 && e[0] == '{' && json.Unmarshal(e, &we) == nil && we.Code != nil && we.Message != nil {
		top["id"] = id
		return appendMembers(nil, top)
	}
	shown := string(id)
	if len(shown) > 64 {
		shown = strings.ToValidUTF8(shown[:64], "") + "…"
	}
	return errorAnswer(id, "the server answered request "+shown+" "+idWords(top)+" (JSON-RPC answers must carry the request's id; a bug in the server)")
}

// mend is msg as the go-sdk is handed it: a result's structuredContent
// carried as its text (structuredAsText), the tools/list entries it
// cannot decode left out (dropBadTools), and an answer without a result
// or an error, or with an error the go-sdk cannot decode, made an error
// answer (mendBadAnswer), and a sampling request's temperature 0 marked
// as sent (markSamplingRequest).
func (b *msgBudget) mend(msg []byte) ([]byte, bool) {
	msg, st := structuredAsText(msg)
	msg, dt := dropBadTools(msg, b.skipped)
	msg, et := mendBadAnswer(msg)
	msg, zt := markSamplingRequest(msg)
	return msg, st || dt || et || zt
}

// refusedError is a message of an MCP server that the bridge refused
// before the go-sdk decoded it.
type refusedError struct {
	server string
	what   string          // "a stdout message", "an SSE event", "a response body"
	size   int64           // its bytes; for a too long one, those read when it was refused
	max    int             // max_message_bytes, for a message too long
	cost   *wire.CostError // the estimate, for a message over the decode budget
	at     time.Time       // when it was refused
}

func (e *refusedError) Error() string {
	if e.cost != nil {
		// (The estimate stops once it passes the budget.)
		return fmt.Sprintf("%s of %d bytes, which would decode to more than %d MiB of host memory (the decode budget, mcp.servers.%s.decode_budget; many small values: empty maps, nulls)",
			e.what, e.cost.Frame, e.cost.Budget>>20, e.server)
	}
	return fmt.Sprintf("%s longer than %d bytes (mcp.servers.%s.max_message_bytes), after reading %d bytes of it",
		e.what, e.max, e.server, e.size)
}

// refuse records and reports e; it returns e.
func (b *msgBudget) refuse(e *refusedError) *refusedError {
	e.server, e.at = b.server, time.Now()
	if b.refused != nil {
		b.refused(e)
	}
	return e
}

// check costs one whole message (what: where it came from); nil when it
// may be decoded.
func (b *msgBudget) check(msg []byte, what string) error {
	if len(msg) > b.maxBytes {
		return b.refuse(&refusedError{what: what, size: int64(len(msg)), max: b.maxBytes})
	}
	var ce *wire.CostError
	if errors.As(wire.CheckJSONCost(msg, b.decode, typedObjectCost), &ce) {
		return b.refuse(&refusedError{what: what, size: int64(len(msg)), cost: ce})
	}
	return nil
}

// tooLong refuses a message found longer than max_message_bytes after
// reading n bytes of it.
func (b *msgBudget) tooLong(what string, n int64) error {
	return b.refuse(&refusedError{what: what, size: n, max: b.maxBytes})
}

// --- stdio ---

// stdioTransport starts a stdio server and connects to it as
// mcpsdk.CommandTransport does (stdin and stdout pipes; closing the
// connection closes stdin, then sends SIGTERM after terminate, then
// SIGKILL), but the go-sdk reads the server's stdout through a
// messageReader.
type stdioTransport struct {
	cmd       *exec.Cmd
	terminate time.Duration
	budget    *msgBudget
	sandbox   *Sandbox // start the process confined (sandbox_linux.go)
	exit      exitState
}

// exitState is the server process's exit status once childStdin.Close's
// wait has reaped it. Read it here, not in cmd.ProcessState: that wait may
// still be running in its own goroutine when Close gives up on an
// unresponsive server, and it writes cmd.ProcessState when the process
// finally goes (a data race with warnStartFailure's read, seen under load
// in TestBridgeHungServerKilledOnClose).
type exitState struct {
	mu sync.Mutex
	ps *os.ProcessState
}

func (e *exitState) set(ps *os.ProcessState) {
	e.mu.Lock()
	e.ps = ps
	e.mu.Unlock()
}

// get returns the exit status, nil while the process has not been reaped.
func (e *exitState) get() *os.ProcessState {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ps
}

func (t *stdioTransport) Connect(ctx context.Context) (mcpsdk.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// A descriptor the host inherited without close-on-exec passed to
	// every server (TestServerInheritsNoStrayFD).
	cloexec.Stray()
	start := func() error { return startHeld(t.cmd, nil) }
	if t.sandbox != nil {
		start = func() error { return startSandboxed(t.cmd, t.sandbox) }
	}
	if err := start(); err != nil {
		return nil, err
	}
	// The session ends when the server's stdout does; a process the
	// server started holds it open after the server exited (a helper, a
	// wrapper script's child), and its calls then waited for their
	// deadlines, the server never restarted. So when the server's process
	// exits, what is left of its process group is killed: its stdout ends
	// once what it wrote has been read.
	go func() {
		if awaitExit(t.cmd.Process) {
			_ = killProcessGroup(t.cmd.Process)
		}
	}()
	tr := &mcpsdk.IOTransport{
		// Closing the connection closes stdin, not stdout (the
		// CommandTransport's way): the server sees EOF and exits.
		Reader: readNopCloser{newMessageReader(stdout, t.budget)},
		Writer: newChildStdin(t.cmd, stdin, t.terminate, &t.exit),
		// The messageReader refuses what passes max_message_bytes; the
		// go-sdk's own cap (a frame it reads may include the newline and
		// bytes the decoder read ahead) stays as a backstop.
		MaxLineLength: t.budget.maxBytes + 64<<10,
	}
	return tr.Connect(ctx)
}

type readNopCloser struct{ io.Reader }

func (readNopCloser) Close() error { return nil }

// childStdin is the server's stdin; Close ends the server as the MCP stdio
// shutdown says (and as mcpsdk.CommandTransport does): close stdin, wait
// terminate for the process to exit, then SIGTERM, wait again, then
// SIGKILL.
//
// Writes are queued and written to the pipe by a goroutine of their own:
// the go-sdk writes under one lock, so a server that stops reading its
// stdin (the pipe full) would otherwise hold every call to it, and their
// cancellations, past their deadlines. At most maxStdinQueue bytes wait;
// past that the write fails with errStdinStalled and the bridge drops the
// connection.
type childStdin struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	terminate time.Duration
	exit      *exitState // set when the wait of Close has reaped the process

	mu      sync.Mutex
	wake    *sync.Cond
	queue   [][]byte
	queued  int
	max     int   // maxStdinQueue
	err     error // sticky: the pipe's write error, or errStdinStalled
	closing bool
	drained chan struct{} // closed when the writer goroutine ends
}

// maxStdinQueue bounds the bytes queued for a stdio server's stdin (a
// variable for tests).
var maxStdinQueue = 64 << 20

var errStdinStalled = errors.New("the server stopped reading its stdin")

func newChildStdin(cmd *exec.Cmd, stdin io.WriteCloser, terminate time.Duration, exit *exitState) *childStdin {
	if exit == nil {
		exit = &exitState{}
	}
	c := &childStdin{cmd: cmd, stdin: stdin, terminate: terminate, exit: exit, max: maxStdinQueue, drained: make(chan struct{})}
	c.wake = sync.NewCond(&c.mu)
	go c.run()
	return c
}

func (c *childStdin) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.err != nil:
		return 0, c.err
	case c.closing:
		return 0, os.ErrClosed
	case c.queued+len(p) > c.max:
		c.err = fmt.Errorf("%w: %d bytes written to it wait unread (at most %d)", errStdinStalled, c.queued, c.max)
		// End the server now: the go-sdk fails the calls waiting for its
		// answers when its stdout ends, and closes the connection only
		// once they are done (they would wait for their deadlines).
		go c.kill()
		return 0, c.err
	}
	c.queue = append(c.queue, bytes.Clone(p))
	c.queued += len(p)
	c.wake.Signal()
	return len(p), nil
}

// run writes the queue to the pipe until Close, after the queue drained,
// or a write error.
func (c *childStdin) run() {
	defer close(c.drained)
	for {
		c.mu.Lock()
		for len(c.queue) == 0 && !c.closing && c.err == nil {
			c.wake.Wait()
		}
		if len(c.queue) == 0 || c.err != nil {
			c.mu.Unlock()
			return
		}
		b := c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		c.mu.Unlock()
		_, err := c.stdin.Write(b)
		c.mu.Lock()
		c.queued -= len(b)
		if err != nil && c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
}

// kill ends the server process and what it started.
func (c *childStdin) kill() {
	if c.cmd.Process == nil {
		return
	}
	if c.cmd.Cancel != nil {
		_ = c.cmd.Cancel() // its process group (bridge.go)
	} else {
		_ = c.cmd.Process.Kill()
	}
}

func (c *childStdin) Close() error {
	// What is queued is written first, for at most terminate (a server
	// that does not read would hold it for ever); closing the pipe ends
	// a write still under way.
	c.mu.Lock()
	c.closing = true
	c.wake.Signal()
	c.mu.Unlock()
	t := time.NewTimer(c.terminate)
	select {
	case <-c.drained:
	case <-t.C:
	}
	t.Stop()
	if err := c.stdin.Close(); err != nil {
		return fmt.Errorf("closing stdin: %v", err)
	}
	exited := make(chan error, 1)
	go func() {
		err := c.cmd.Wait()
		c.exit.set(c.cmd.ProcessState)
		exited <- err
	}()
	wait := func() (error, bool) {
		t := time.NewTimer(c.terminate)
		defer t.Stop()
		select {
		case err := <-exited:
			return err, true
		case <-t.C:
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := c.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("unresponsive subprocess")
}

// messageReader hands the go-sdk a stdio server's stdout one checked
// message at a time. It splits the stream into JSON values with
// encoding/json's Decoder, as the go-sdk's own stdio reader does (a
// message is one JSON value followed by a newline; the go-sdk accepts
// values spanning lines, so splitting at newlines alone would let a
// message dodge the check in pieces), bounds the bytes read for one value
// to max_message_bytes, costs each value (msgBudget.check) and passes it
// on, as it came (but a result's structuredContent, carried as its text:
// structuredAsText), followed by a newline.
//
// Text that is not JSON (a banner, a print() left in a tool) and JSON
// that is no JSON-RPC message (a JSON log line) are skipped to the end of
// their line and reported (msgBudget.stray), as the reference SDKs'
// stdio clients skip a line they cannot parse: the go-sdk ended the
// connection at them, failing every call in flight and restarting the
// server (TestStrayStdoutLinesSkipped). Its other errors (a refusal, a
// value with trailing data on its line, a line past max_message_bytes,
// the stream's end) are sticky; the go-sdk ends the connection at the
// first.
type messageReader struct {
	b       *msgBudget
	lim     *frameLimiter
	dec     *json.Decoder
	base    int64         // the stream offset of the decoder's first byte (after a skipped line)
	carry   *bytes.Reader // what followed a skipped line, read from the server, which the decoder reads first
	pending []byte        // checked bytes not yet read
	err     error
}

func newMessageReader(r io.Reader, b *msgBudget) *messageReader {
	lim := &frameLimiter{r: &bomReader{br: bufio.NewReader(r)}, max: int64(b.maxBytes)}
	return &messageReader{b: b, lim: lim, dec: json.NewDecoder(lim)}
}

func (m *messageReader) Read(p []byte) (int, error) {
	for len(m.pending) == 0 {
		if m.err != nil {
			return 0, m.err
		}
		m.next()
	}
	n := copy(p, m.pending)
	m.pending = m.pending[n:]
	return n, nil
}

// next reads, checks and queues the next message.
func (m *messageReader) next() {
	m.lim.start = m.base + m.dec.InputOffset()
	var raw json.RawMessage
	if err := m.dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.Is(err, errFrameLimit):
			m.err = m.b.tooLong("a stdout message", m.lim.n-m.lim.start)
		case errors.As(err, &se):
			// Text that is not JSON: skipped from where the value began.
			m.skipLine(nil, err, false)
		default:
			m.err = err
		}
		return
	}
	if raw[0] != '{' && raw[0] != '[' {
		// A number, string or literal, which no JSON-RPC message is: the
		// start of a line of text ("2024/01/02 15:04:05 listening", as
		// Go's log writes, read 2024 and then text after it, which ended
		// the connection as trailing data): skipped with the rest of its
		// line.
		m.skipLine(raw, errors.New("not a JSON-RPC message"), false)
		return
	}
	// The go-sdk's rule is that a value is followed by a newline (or CR),
	// or by nothing yet; the value goes to it followed by a newline. Text
	// after it on its line is skipped (and reported unless blank).
	var next [1]byte
	if n, _ := m.dec.Buffered().Read(next[:]); n > 0 && next[0] != '\n' && next[0] != '\r' {
		m.skipLine(nil, errors.New("text after a message on its line"), true)
		if m.err != nil {
			return
		}
	}
	if err := m.b.check(raw, "a stdout message"); err != nil {
		m.err = err
		return
	}
	if !bytes.Contains(raw, []byte(`"jsonrpc"`)) {
		// A JSON log line ({"level":"info",…}): the go-sdk said only
		// `invalid message version tag ""; expected "2.0"`, and ended
		// the connection.
		m.b.strayText(string(raw[:min(len(raw), strayShown)]), errors.New(`a JSON value without "jsonrpc"`))
		return
	}
	if top, ok := answerWithoutID(raw); ok {
		// The bridge cannot tell which request it answers: dropped, logged.
		if raw = m.b.withoutID(top, raw, nil); raw == nil {
			return
		}
	}
	raw, _ = m.b.mend(raw)
	m.pending = append(raw, '\n')
}

// strayShown bounds the text of a skipped line that is reported.
const strayShown = 200

// skipLine skips the rest of a line the decoder stopped in: from what it
// has read and not consumed (where a value that is not JSON began, past
// white space; or what follows a value it decoded, head, on that value's
// line) to the line's end, reading on from the server as far as
// max_message_bytes for a line longer than the decoder had buffered. It
// reports the line (head and the rest, why: the decoder's error or what
// is wrong) unless blank is true and the rest is white space, and goes on
// with a decoder reading after it.
func (m *messageReader) skipLine(head []byte, why error, blank bool) {
	rest, _ := io.ReadAll(m.dec.Buffered()) // what the decoder read and did not consume
	carried := 0                            // read from the server, not yet by the decoder
	if m.carry != nil {
		carried = m.carry.Len()
	}
	start := m.lim.n - int64(carried) - int64(len(rest)) // the offset of rest in the stream
	if head == nil && !blank {
		ws := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n"))
		rest, start = rest[ws:], start+int64(ws)
	}
	shown := append([]byte(nil), head[:min(len(head), strayShown)]...)
	take := func(b []byte) {
		if len(shown) < strayShown {
			shown = append(shown, b[:min(len(b), strayShown-len(shown))]...)
		}
	}
	var after []byte // what follows the line
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		take(rest[:i])
		after = append(after, rest[i+1:]...)
	} else {
		take(rest)
		// The line goes on past what the decoder read: read to its end,
		// bounded as a message is.
		m.lim.start = start
		src := io.Reader(m.lim)
		if m.carry != nil {
			src = io.MultiReader(m.carry, m.lim)
		}
		var buf [4096]byte
		for {
			n, rerr := src.Read(buf[:])
			if j := bytes.IndexByte(buf[:n], '\n'); j >= 0 {
				take(buf[:j])
				after = append(after, buf[j+1:n]...)
				break
			}
			take(buf[:n])
			if rerr != nil {
				if errors.Is(rerr, errFrameLimit) {
					m.err = m.b.tooLong("a stdout line that is not JSON", m.lim.n-m.lim.start)
					return
				}
				break // the stream's end (or error), which the next read meets
			}
		}
	}
	if m.carry != nil {
		more, _ := io.ReadAll(m.carry)
		after = append(after, more...)
	}
	if !blank || len(bytes.TrimSpace(shown)) > 0 {
		m.b.strayText(string(shown), why)
	}
	m.carry = bytes.NewReader(after)
	m.base = m.lim.n - int64(len(after))
	m.dec = json.NewDecoder(io.MultiReader(m.carry, m.lim))
}

var errFrameLimit = errors.New("message too long")

// bomReader is a server's stdout without the UTF-8 byte order mark it
// may start with (a server writing through .NET's Encoding.UTF8 or
// Python's utf-8-sig): RFC 8259 lets a reader ignore it, as the host's
// own MCP server does a client's; it failed every connection, "not
// JSON-RPC … invalid character 'ï'".
type bomReader struct {
	br      *bufio.Reader
	checked bool
}

func (b *bomReader) Read(p []byte) (int, error) {
	if !b.checked {
		b.checked = true
		if head, err := b.br.Peek(3); err == nil && string(head) == "\xef\xbb\xbf" {
			_, _ = b.br.Discard(3)
		}
	}
	return b.br.Read(p)
}

// notJSONRPC says that a stdio server wrote what is not a JSON-RPC
// message to stdout, quoting the first line of head, its start.
func notJSONRPC(head string, err error) error {
	line, _, _ := strings.Cut(strings.TrimLeft(head, " \t\r\n"), "\n")
	return fmt.Errorf("the server wrote text that is not JSON-RPC to stdout (%q): %v; an MCP stdio server writes only MCP messages there (its logs go to stderr)",
		strings.ToValidUTF8(line, "?"), err)
}

// frameLimiter counts the bytes read from r and refuses to read more than
// max past start (the decoder's offset where the current value began):
// read-ahead past a value counts towards the next one.
type frameLimiter struct {
	r        io.Reader
	max      int64
	n, start int64
}

func (l *frameLimiter) Read(p []byte) (int, error) {
	left := l.start + l.max - l.n
	if left <= 0 {
		return 0, errFrameLimit
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

// --- streamable HTTP ---

// budgetTransport checks the body of every response before the go-sdk
// reads it: an SSE stream (text/event-stream) event by event, any other
// body (application/json, or an error answer the go-sdk decodes as JSON)
// as one message.
type budgetTransport struct {
	base   http.RoundTripper
	budget *msgBudget

	// The last event ids of the calls' SSE streams that ended, each with
	// its request's id (callStreamEnded), the latest maxEndedStreams.
	endedMu  sync.Mutex
	ended    map[string]json.RawMessage
	endedIDs []string
}

// maxEndedStreams bounds the ended call streams a transport remembers
// (callStreamEnded: every call stream with event ids ends so, answered
// or not; the go-sdk asks to resume one at once).
const maxEndedStreams = 64

// callStreamEnded notes that the SSE stream of the call whose POST is r
// ended after the event lastID: the go-sdk, unless that stream brought
// the call's answer, asks to resume it (a GET with Last-Event-ID).
func (t *budgetTransport) callStreamEnded(r *http.Request, lastID string) {
	id := requestID(r)
	if id == nil {
		return
	}
	t.endedMu.Lock()
	defer t.endedMu.Unlock()
	if t.ended == nil {
		t.ended = map[string]json.RawMessage{}
	}
	if _, ok := t.ended[lastID]; !ok {
		t.endedIDs = append(t.endedIDs, lastID)
	}
	t.ended[lastID] = id
	if len(t.endedIDs) > maxEndedStreams {
		delete(t.ended, t.endedIDs[0])
		t.endedIDs = t.endedIDs[1:]
	}
}

// endedCall is the request id of the call whose stream ended after the
// event lastID (nil when none is known), forgotten once asked for.
func (t *budgetTransport) endedCall(lastID string) json.RawMessage {
	t.endedMu.Lock()
	defer t.endedMu.Unlock()
	id := t.ended[lastID]
	delete(t.ended, lastID) // (its entry in endedIDs goes when it is the oldest)
	return id
}

func (t *budgetTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if last := r.Header.Get("Last-Event-ID"); r.Method == http.MethodGet && last != "" &&
		resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNotFound {
		// The go-sdk resuming a call's stream that ended before its
		// answer, and the server refusing (405: it serves no GET): the
		// go-sdk ended the whole session, failing every call in flight,
		// for that one call's answer. The call fails alone. (404: the
		// session is gone, and a new one is started, as before.)
		if id := t.endedCall(last); id != nil {
			resp.Body.Close()
			return notResumed(resp, id, last), nil
		}
	}
	if mt == "text/event-stream" && r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") == "" && resp.StatusCode == http.StatusOK {
		// (Even empty: a server may close the stream at once.)
		resp.Body = &standaloneStream{t: t, req: r, cur: newSSEReader(resp.Body, t.budget), delay: reopenMin}
		return resp, nil
	}
	if r.Method == http.MethodPost && refusedStatus(resp.StatusCode) {
		if mended := refusedAnswer(r, resp); mended != nil {
			return mended, nil
		}
	}
	if r.Method == http.MethodPost && resp.StatusCode/100 == 2 && mt != "text/event-stream" && mt != "application/json" {
		// (Before NoBody: a 202 or 204 without a body answering a
		// request, as MCP answers a notification, did the same.)
		if mended := notAnAnswer(r, resp, mt); mended != nil {
			return mended, nil
		}
	}
	if resp.Body == http.NoBody {
		return resp, nil
	}
	if mt == "text/event-stream" {
		sr := newSSEReader(resp.Body, t.budget)
		if r.Method == http.MethodPost && resp.StatusCode == http.StatusOK {
			sr.req = r
			sr.ended = func(lastID string) { t.callStreamEnded(r, lastID) }
		}
		resp.Body = sr
	} else {
		br := &bodyReader{body: resp.Body, b: t.budget}
		if r.Method == http.MethodPost && resp.StatusCode == http.StatusOK && mt == "application/json" {
			br.req = r
		}
		resp.Body = br
		resp.ContentLength = -1 // it may end early with an error
	}
	return resp, nil
}

// notAnAnswer is the JSON-RPC error answer to r, a request with an id,
// that stands for resp, a 2xx answer of Content-Type mt that is no
// JSON-RPC answer (a proxy's HTML page, say, or a 202 without a body);
// nil when r has no id. The
// go-sdk failed the write of such a request without marking it a
// transient failure, which ended the session: the call answered
// "unsupported content type", and the next one, sent on the dead session,
// that same error, Unavailable.
func notAnAnswer(r *http.Request, resp *http.Response, mt string) *http.Response {
	id := requestID(r)
	if id == nil {
		return nil
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	resp.Body.Close()
	what := fmt.Sprintf("HTTP %d and Content-Type %q (%q)", resp.StatusCode, mt, strings.ToValidUTF8(string(head), "?"))
	if len(head) == 0 && resp.StatusCode != http.StatusOK {
		what = fmt.Sprintf("HTTP %d %s and no body", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return withJSONBody(resp, errorAnswer(id, "the server answered the request with "+what+", not a JSON-RPC answer (application/json or text/event-stream)"))
}

// withJSONBody is resp with body, a JSON-RPC answer, as its body.
func withJSONBody(resp *http.Response, body []byte) *http.Response {
	out := *resp
	out.Header = resp.Header.Clone()
	out.Header.Set("Content-Type", "application/json")
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	return &out
}

// refusedStatus says whether status, answering a POST, ends the whole
// session in the go-sdk unless its body is a JSON-RPC error answer: any
// error status but 401 and 403 (auth.go), 404 (the session is gone: a
// new one is started) and those the go-sdk takes for transient ones (429,
// 500, 502, 503, 504: the request alone fails, transportFailure).
func refusedStatus(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return false
	}
	return status >= 400
}

// refusedAnswer is resp, an error status (refusedStatus) answering r, a
// request with an id, with a JSON-RPC error answer to r as its body when
// it has none (the server's or a proxy's text: 413 for a body past its
// limit, 400 from a gateway, a CDN's 520); nil when r has no id. The
// go-sdk takes an error answer in such a body for the request's error and
// keeps the session; any other body ended the session, failing every call
// in flight with the one refused.
func refusedAnswer(r *http.Request, resp *http.Response) *http.Response {
	id := requestID(r)
	if id == nil {
		return nil
	}
	const keep = 64 << 10 // a JSON-RPC error answer is read whole below this
	head, _ := io.ReadAll(io.LimitReader(resp.Body, keep+1))
	resp.Body.Close()
	body := head
	if msg, err := jsonrpc.DecodeMessage(head); len(head) > keep || err != nil || !isErrorAnswer(msg) {
		status := strings.TrimSpace(fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode)))
		body = errorAnswer(id, fmt.Sprintf("the server answered the request with HTTP %s, without a JSON-RPC answer (%q)",
			status, strings.ToValidUTF8(string(head[:min(len(head), 200)]), "?")))
	}
	return withJSONBody(resp, body)
}

// isErrorAnswer says whether msg is a JSON-RPC answer carrying an error.
func isErrorAnswer(msg jsonrpc.Message) bool {
	a, ok := msg.(*jsonrpc.Response)
	return ok && a.Error != nil
}

// notResumed is the answer that stands for resp, a refusal of the
// go-sdk's GET resuming the stream of call id after the event lastID: a
// 200 stream holding that call's error answer, which the go-sdk takes as
// the call's answer.
func notResumed(resp *http.Response, id json.RawMessage, lastID string) *http.Response {
	b := errorAnswer(id, fmt.Sprintf(
		"the server ended the request's SSE stream (after event %.64q) before its answer, and answered the GET resuming it with HTTP %d %s",
		lastID, resp.StatusCode, http.StatusText(resp.StatusCode)))
	body := append(append([]byte("event: message\ndata: "), b...), "\n\n"...)
	out := *resp
	out.StatusCode, out.Status = http.StatusOK, "200 OK"
	out.Header = resp.Header.Clone()
	out.Header.Set("Content-Type", "text/event-stream")
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	return &out
}

// requestID is the JSON-RPC id of r's body, nil when it has none (a
// notification, a response) or cannot be read again.
func requestID(r *http.Request) json.RawMessage {
	if r == nil || r.GetBody == nil {
		return nil
	}
	body, err := r.GetBody()
	if err != nil {
		return nil
	}
	defer body.Close()
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	err = json.NewDecoder(io.LimitReader(body, 16<<20)).Decode(&req)
	if id := bytes.TrimSpace(req.ID); err == nil && len(id) > 0 && string(id) != "null" {
		return id
	}
	return nil
}

// present records that a member was there, without copying it.
type present bool

func (p *present) UnmarshalJSON([]byte) error { *p = true; return nil }

// underOtherID is buf, the application/json body answering the POST req,
// made an error answer to req's request when it answers under another id
// (another request's, or the request's as a string): the body is the one
// answer to the POST's request, and the go-sdk, taking it for the answer
// to no request, dropped it and left the call waiting until its deadline.
func underOtherID(buf []byte, req *http.Request) []byte {
	var top struct {
		ID     json.RawMessage `json:"id"`
		Method present         `json:"method"`
		Result present         `json:"result"`
		Error  present         `json:"error"`
	}
	if json.Unmarshal(buf, &top) != nil || bool(top.Method) || !bool(top.Result) && !bool(top.Error) {
		return buf
	}
	got := bytes.TrimSpace(top.ID)
	if len(got) == 0 || string(got) == "null" {
		return buf
	}
	want := requestID(req)
	var g, w any
	if want == nil || json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil || reflect.DeepEqual(g, w) {
		return buf
	}
	shown := func(id []byte) string { return strings.ToValidUTF8(wire.CutText(string(id), 64, "…"), "?") }
	return errorAnswer(want, fmt.Sprintf("the server answered request %s under the id %s, not the request's: the JSON body answering a POST must carry its request's id (a bug in the server)",
		shown(want), shown(got)))
}

// errorAnswer is a JSON-RPC error answer (-32603, msg) to request id.
func errorAnswer(id json.RawMessage, msg string) []byte {
	e, _ := json.Marshal(map[string]any{"code": -32603, "message": msg})
	return appendMembers(nil, map[string]json.RawMessage{"jsonrpc": json.RawMessage(`"2.0"`), "id": id, "error": e})
}

// Delays before the standalone stream is reopened (standaloneStream).
const (
	reopenMin = time.Second
	reopenMax = 30 * time.Second
)

// standaloneStream is the body of a URL server's standalone GET stream
// (server-initiated messages). MCP lets a server close that stream at any
// time and the client open it again; the go-sdk does, but it ends the
// whole session — and every call in flight — when the stream ended
// MaxRetries times without a new event id. So a clean end is not passed
// on: the stream is opened again here (the GET again, with Last-Event-ID
// when its events had ids), after reopenMin, doubling up to reopenMax
// while the streams bring no event, and the go-sdk reads one stream. A
// failed reopen, or one that does not answer 200 text/event-stream, is
// passed on as the stream's end or error, as before.
type standaloneStream struct {
	t     *budgetTransport
	req   *http.Request
	cur   *sseReader
	delay time.Duration
	got   bool // the current stream brought an event
}

func (s *standaloneStream) Read(p []byte) (int, error) {
	for {
		n, err := s.cur.Read(p)
		if n > 0 {
			s.got = true
			return n, nil
		}
		if !errors.Is(err, io.EOF) {
			return n, err
		}
		if s.got {
			s.delay, s.got = reopenMin, false
		}
		t := time.NewTimer(s.delay)
		select {
		case <-t.C:
		case <-s.req.Context().Done():
			t.Stop()
			return 0, io.EOF
		}
		s.delay = min(s.delay*2, reopenMax)
		req := s.req.Clone(s.req.Context())
		if id := s.cur.lastID; id != "" {
			req.Header.Set("Last-Event-ID", id)
		}
		resp, err := s.t.base.RoundTrip(req)
		if err != nil {
			return 0, err
		}
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
			resp.Body.Close()
			return 0, io.EOF
		}
		last := s.cur.lastID
		_ = s.cur.Close()
		s.cur = newSSEReader(resp.Body, s.t.budget)
		s.cur.lastID = last
	}
}

func (s *standaloneStream) Close() error { return s.cur.Close() }

// bodyReader reads a whole response body (at most max_message_bytes) at
// the first Read and checks it before passing it on.
type bodyReader struct {
	body io.ReadCloser
	b    *msgBudget
	req  *http.Request // the POST a 200 application/json body answers, else nil
	read bool
	buf  []byte
	err  error
}

func (r *bodyReader) Read(p []byte) (int, error) {
	if !r.read {
		r.read = true
		buf, err := io.ReadAll(io.LimitReader(r.body, int64(r.b.maxBytes)+1))
		switch {
		case len(buf) > r.b.maxBytes:
			r.err = r.b.tooLong("a response body", int64(len(buf)))
		case err != nil:
			r.err = err
		default:
			if r.err = r.b.check(buf, "a response body"); r.err == nil {
				if r.req != nil && (!json.Valid(buf) || !bytes.Contains(buf, []byte(`"jsonrpc"`))) {
					// A 200 answer said to be JSON that is no JSON-RPC
					// message (text, a web framework's {"detail": …}):
					// the go-sdk failed to decode it and ended the session.
					if id := requestID(r.req); id != nil {
						buf = errorAnswer(id, fmt.Sprintf("the server answered the request with HTTP 200 and a body that is not a JSON-RPC message (%q)",
							strings.ToValidUTF8(string(buf[:min(len(buf), 200)]), "?")))
					}
				}
				if top, ok := answerWithoutID(buf); ok && r.req != nil {
					// The answer to this POST's request, without its id.
					buf = r.b.withoutID(top, buf, func() json.RawMessage { return requestID(r.req) })
				} else if r.req != nil {
					buf = underOtherID(buf, r.req)
				}
				r.buf, _ = r.b.mend(buf)
				r.err = io.EOF
			}
		}
	}
	if len(r.buf) > 0 {
		n := copy(p, r.buf)
		r.buf = r.buf[n:]
		return n, nil
	}
	return 0, r.err
}

func (r *bodyReader) Close() error {
	r.buf = nil
	return r.body.Close()
}

// sseReader passes an SSE stream on one event at a time, after checking
// the event's data. It reads events as the go-sdk does (lines end at
// "\n", trailing CRs and LFs are trimmed, an empty line or the stream's
// end dispatches the event, `data:` values are trimmed of spaces and
// joined with "\n"), so that what it checks is exactly what the go-sdk
// would decode; it holds one event (at most max_message_bytes) at a time.
type sseReader struct {
	body    io.ReadCloser
	br      *bufio.Reader
	b       *msgBudget
	event   []byte // raw bytes of the event being read
	data    []byte // its data, joined as the go-sdk joins it
	hasData bool
	evName  []byte              // its event field
	req     *http.Request       // the POST whose call's stream this is, else nil
	ended   func(lastID string) // with req: told the last event id at the stream's end
	out     []byte              // a checked event not yet read
	err     error
	lastID  string // the last event id field seen
}

func newSSEReader(body io.ReadCloser, b *msgBudget) *sseReader {
	return &sseReader{body: body, br: bufio.NewReader(body), b: b}
}

func (s *sseReader) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.readLine()
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

func (s *sseReader) Close() error {
	s.event, s.data, s.out = nil, nil, nil
	return s.body.Close()
}

// readLine reads one line of the stream into the current event and
// dispatches the event at its end.
func (s *sseReader) readLine() {
	begin := len(s.event)
	var err error
	for {
		var frag []byte
		frag, err = s.br.ReadSlice('\n')
		if len(s.event)+len(frag) > s.b.maxBytes {
			s.err = s.b.tooLong("an SSE event", int64(len(s.event)+len(frag)))
			s.event, s.data = nil, nil
			return
		}
		s.event = appendDoubling(s.event, frag)
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err // the go-sdk drops the event being read
		return
	}
	field := bytes.TrimRight(s.event[begin:], "\r\n")
	if len(field) > 0 {
		if name, value, ok := bytes.Cut(field, []byte{':'}); ok && string(name) == "id" {
			s.lastID = string(bytes.TrimSpace(value))
		} else if ok && string(name) == "event" {
			s.evName = append(s.evName[:0], bytes.TrimSpace(value)...)
		} else if ok && string(name) == "data" {
			if s.hasData {
				s.data = append(s.data, '\n')
			}
			s.data = appendDoubling(s.data, bytes.TrimSpace(value))
			s.hasData = true
		}
	}
	if len(field) == 0 || err != nil {
		s.dispatch()
	}
	if err != nil && s.err == nil {
		s.err = err // io.EOF, after the last event
		if s.ended != nil && s.lastID != "" {
			s.ended(s.lastID)
		}
	}
}

// dispatch checks the event's data and releases the event (its data
// rewritten when it carries a result's structuredContent: structuredAsText).
func (s *sseReader) dispatch() {
	if err := s.b.check(s.data, "an SSE event"); err != nil {
		s.err = err
		s.event, s.data = nil, nil
		return
	}
	s.out, s.event = s.event, nil
	data, bad := s.data, false
	if s.req != nil && len(data) > 0 && (len(s.evName) == 0 || string(s.evName) == "message") &&
		(!json.Valid(data) || !bytes.Contains(data, []byte(`"jsonrpc"`))) {
		// An event of a call's stream that is no JSON-RPC message: the
		// go-sdk failed to decode it and ended the session.
		if id := requestID(s.req); id != nil {
			data, bad = errorAnswer(id, fmt.Sprintf("the server sent an SSE event that is not a JSON-RPC message (%q)",
				strings.ToValidUTF8(string(data[:min(len(data), 200)]), "?"))), true
		}
	}
	if !bad && len(data) > 0 && (len(s.evName) == 0 || string(s.evName) == "message") {
		if top, ok := answerWithoutID(data); ok {
			// On a POST's stream, the answer to its request without its
			// id; elsewhere (the standalone stream) dropped, logged.
			var reqID func() json.RawMessage
			if s.req != nil {
				reqID = func() json.RawMessage { return requestID(s.req) }
			}
			if data, bad = s.b.withoutID(top, data, reqID), true; data == nil {
				s.out = nil
				s.data, s.hasData, s.evName = s.data[:0], false, s.evName[:0]
				return
			}
		}
	}
	if mended, ok := s.b.mend(data); ok || bad {
		s.out = withData(s.out, mended)
	}
	s.data, s.hasData, s.evName = s.data[:0], false, s.evName[:0]
}

// withData is the SSE event with its data replaced by data (its other
// fields kept), ending with the empty line that dispatches it.
func withData(event, data []byte) []byte {
	out := make([]byte, 0, len(data)+len(event)/8+64)
	for line := range bytes.Lines(event) {
		field := bytes.TrimRight(line, "\r\n")
		if name, _, _ := bytes.Cut(field, []byte{':'}); len(field) == 0 || string(name) == "data" {
			continue
		}
		out = append(append(out, field...), '\n')
	}
	for line := range bytes.Lines(data) {
		out = append(append(append(out, "data: "...), bytes.TrimRight(line, "\n")...), '\n')
	}
	return append(out, '\n')
}

// appendDoubling is append that doubles a full buffer (append grows a
// large one by a quarter: an event of n bytes read in 4 KiB pieces would
// allocate about 5n in all, 2n this way).
func appendDoubling(dst, src []byte) []byte {
	if n := len(dst) + len(src); n > cap(dst) {
		grown := make([]byte, len(dst), max(n, 2*cap(dst), 4096))
		copy(grown, dst)
		dst = grown
	}
	return append(dst, src...)
}
