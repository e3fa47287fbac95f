package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/wire"
)

// MaxMessageBytes bounds one message a client reads (64 MiB).
const MaxMessageBytes = 64 << 20

// Client calls a JSON-RPC server over a unix socket (one persistent
// connection, newline-delimited messages, server notifications delivered to
// OnNotify) or over HTTP (one POST per call). It is safe for concurrent use.
type Client struct {
	next atomic.Int64

	// unix socket
	conn    net.Conn
	wmu     sync.Mutex
	pmu     sync.Mutex
	pending map[string]chan *Response
	done    chan struct{}
	readErr error
	// refused: the server said why it closed the connection (readErr
	// has its words).
	refused bool
	notify  atomic.Pointer[func(method string, params json.RawMessage)]

	// http
	url   string
	token string
	hc    *http.Client
}

// DialUnix connects to the server's socket.
func DialUnix(ctx context.Context, path string) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	return NewConnClient(conn), nil
}

// NewConnClient speaks newline-delimited JSON-RPC over conn.
func NewConnClient(conn net.Conn) *Client {
	c := &Client{conn: conn, pending: map[string]chan *Response{}, done: make(chan struct{})}
	go c.readLoop()
	return c
}

// NewHTTPClient posts calls to url (…/rpc) with an optional bearer token.
func NewHTTPClient(url, token string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	return &Client{url: url, token: token, hc: hc}
}

// server names the server in errors: its URL, or the socket's address.
func (c *Client) server() string {
	if c.conn != nil {
		return c.conn.RemoteAddr().String()
	}
	return c.url
}

// OnNotify sets the handler of server notifications (unix socket only). It
// runs on the reader goroutine and must not block for long.
func (c *Client) OnNotify(f func(method string, params json.RawMessage)) { c.notify.Store(&f) }

// Close closes the connection; pending calls fail.
func (c *Client) Close() error {
	if c.conn != nil {
		return c.conn.Close()
	}
	return nil
}

// Call sends method with params and decodes the result into result (which
// may be nil). A server error is returned as *Error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	id := strconv.FormatInt(c.next.Add(1), 10)
	req := Request{JSONRPC: Version, ID: json.RawMessage(`"` + id + `"`), Method: method}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("encoding %s params: %w", method, err)
		}
		req.Params = b
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	var resp *Response
	if c.conn != nil {
		resp, err = c.callConn(ctx, id, body)
	} else {
		resp, err = c.callHTTP(ctx, id, body)
	}
	if err != nil {
		return err
	}
	if resp.Error != nil {
		if r := bytes.TrimSpace(resp.Result); len(r) > 0 && string(r) != "null" {
			// JSON-RPC 2.0 allows one of the two: which one the server
			// meant is not known, and the error alone was taken for its
			// answer. (A "result": null beside an error, as JSON-RPC 1.0
			// answered, is the error.)
			return Errorf(abi.InvalidResult, "the answer of %s to %s has both a \"result\" and an \"error\" member (error %d %q); JSON-RPC 2.0 allows one", c.server(), method, resp.Error.Code, wire.CutText(resp.Error.Message, 200, "…"))
		}
		return resp.Error
	}
	if len(resp.Result) == 0 {
		// ({"jsonrpc":"2.0","id":"1"}: decoding it failed with "EOF",
		// which named neither the server nor what was wrong.)
		return Errorf(abi.InvalidResult, "the answer of %s to %s has neither a \"result\" nor an \"error\" member", c.server(), method)
	}
	if result != nil {
		// Untrusted text: encoding/json would read an invalid byte or an
		// escaped lone surrogate as U+FFFD, two member names as one.
		if err := wire.NotUnicodeText(resp.Result); err != nil {
			return Errorf(abi.InvalidResult, "the %s result of %s: %v", method, c.server(), err)
		}
		dec := json.NewDecoder(bytes.NewReader(resp.Result))
		dec.UseNumber()
		if err := dec.Decode(result); err != nil {
			// (Go's "cannot unmarshal string into Go value of type
			// struct { … }" named Go types, not what the server sent,
			// and a caller took it for the server being unreachable.)
			return Errorf(abi.InvalidResult, "the %s result of %s %s", method, c.server(), resultMismatch(err))
		}
	}
	return nil
}

func (c *Client) callConn(ctx context.Context, id string, body []byte) (*Response, error) {
	ch := make(chan *Response, 1)
	c.pmu.Lock()
	if c.readErr != nil {
		c.pmu.Unlock()
		return nil, notSent{c.readErr} // (a kept connection the server closed since: idle_timeout)
	}
	c.pending[id] = ch
	c.pmu.Unlock()
	defer func() {
		c.pmu.Lock()
		delete(c.pending, id)
		c.pmu.Unlock()
	}()
	c.wmu.Lock()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.conn.SetWriteDeadline(dl)
	} else {
		_ = c.conn.SetWriteDeadline(time.Time{})
	}
	_, err := c.conn.Write(append(body, '\n'))
	c.wmu.Unlock()
	if err != nil {
		// Its '\n' was not written: the server runs no part of it.
		if rerr := c.refusal(ctx, err); rerr != nil {
			return nil, notSent{rerr}
		}
		return nil, notSent{fmt.Errorf("writing to %s: %w", c.conn.RemoteAddr(), err)}
	}
	if testHookBeforeWait != nil {
		testHookBeforeWait(c)
	}
	select {
	case r := <-ch:
		return r, nil
	case <-c.done:
		// A server that answers and then closes (one shutting down):
		// the answer came before the end, and select picks either
		// when both are there by the time it runs.
		select {
		case r := <-ch:
			return r, nil
		default:
		}
		c.pmu.Lock()
		err := c.readErr
		c.pmu.Unlock()
		return nil, err
	case <-ctx.Done():
		// The connection stays, shared by other calls: the server is
		// told to cancel this one (it ran on to its deadline), without
		// waiting for another call's write to end.
		go c.cancelRequest(id)
		return nil, ctx.Err()
	}
}

// cancelRequest sends notifications/cancelled for the request of id,
// best effort: a server that does not know it ignores a notification.
func (c *Client) cancelRequest(id string) {
	b, err := json.Marshal(Notification{JSONRPC: Version, Method: "notifications/cancelled",
		Params: map[string]any{"requestId": id}})
	if err != nil {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.conn.Write(append(b, '\n'))
}

// ErrNotSent is in the chain of a call's error when its request did not
// reach the server whole, so nothing of it ran: the connection had ended
// before (a kept connection the server closed as idle) or the request
// could not be written. The caller may send it again on a new connection.
var ErrNotSent = errors.New("the request was not sent")

// notSent is err, marked ErrNotSent.
type notSent struct{ err error }

func (e notSent) Error() string   { return e.err.Error() }
func (e notSent) Unwrap() []error { return []error{e.err, ErrNotSent} }

// refusal is the server's reason for closing the connection when a write
// failed because it did (a broken pipe: the server said why in a line and
// closed before the request was written), else nil. The reader reaches
// that line and the end soon after; it is waited for at most a second.
func (c *Client) refusal(ctx context.Context, werr error) error {
	if ne, ok := werr.(net.Error); ok && ne.Timeout() {
		return nil
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-c.done:
	case <-ctx.Done():
		return nil
	case <-t.C:
		return nil
	}
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if c.refused {
		return c.readErr
	}
	return nil
}

// testHookBeforeWait runs after a request is written on a connection,
// before the wait for its answer (tests).
var testHookBeforeWait func(c *Client)

func (c *Client) readLoop() {
	r := bufio.NewReaderSize(c.conn, 64<<10)
	var err error
	// refused is the last error the server answered with id null: why it
	// closes the connection (a uid it does not serve, one over
	// server.max_conns_per_uid, a message over server.max_body_bytes),
	// which no pending call's id names.
	var refused *Error
	for {
		var line []byte
		line, err = readLine(r, MaxMessageBytes)
		if err != nil {
			break
		}
		if err = wire.CheckJSONCost(line, wire.DecodeBudget, 0); err != nil {
			// Which call it answers is unknown without decoding it:
			// the connection fails, and every call in flight with it.
			err = fmt.Errorf("refused a message before decoding it: %w (the decode budget)", err)
			break
		}
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &probe) != nil {
			if len(bytes.TrimSpace(line)) == 0 {
				continue // a blank line
			}
			// (An HTML error page, a banner: skipped, the calls waited
			// to their deadlines, then said the server had not answered.)
			// Which call it answers is unknown: the connection fails.
			err = notMessage(line)
			break
		}
		refused = nil // (not the last word)
		if probe.Method != "" && len(probe.ID) == 0 {
			if f := c.notify.Load(); f != nil {
				(*f)(probe.Method, probe.Params)
			}
			continue
		}
		var resp Response
		if derr := json.Unmarshal(line, &resp); derr != nil {
			// ("error": "boom": skipped, its call waited to its deadline.)
			err = fmt.Errorf("the server sent a line that is not a JSON-RPC message (it %s): %q",
				resultMismatch(derr), wire.CutText(string(bytes.TrimSpace(line)), 200, "…"))
			break
		}
		if resp.Error != nil && (len(resp.ID) == 0 || string(resp.ID) == "null") {
			refused = resp.Error
			continue
		}
		var id string
		if json.Unmarshal(resp.ID, &id) != nil {
			id = string(resp.ID)
		}
		c.pmu.Lock()
		ch := c.pending[id]
		c.pmu.Unlock()
		if ch != nil {
			select {
			case ch <- &resp:
			default: // a second answer to one request: the first counts
			}
		}
	}
	said := refused != nil && !errors.Is(err, net.ErrClosed)
	switch {
	case said:
		// (the end after it may be a reset: the server closed with our
		// request unread.) Its words, not the *Error: no call was
		// answered with it, and a caller taking it for an answer (a
		// remote adapter) would keep the dead connection.
		err = fmt.Errorf("the server closed the connection: %s", refused.Error())
	case errors.Is(err, io.EOF):
		err = errors.New("the server closed the connection")
	}
	c.pmu.Lock()
	c.readErr = fmt.Errorf("connection to %s: %w", c.conn.RemoteAddr(), err)
	c.refused = said
	c.pmu.Unlock()
	close(c.done)
}

// notMessage says what a line the server sent that is not a JSON-RPC
// message is, quoting its start.
func notMessage(line []byte) error {
	text := bytes.TrimSpace(line)
	why := ""
	if msg, _ := wire.JSONSyntax(text); msg != "" {
		why = "not JSON: " + msg
	} else {
		var v any
		_ = json.Unmarshal(text, &v)
		switch v.(type) {
		case []any:
			why = "a JSON array, not an object"
		case string:
			why = "a JSON string, not an object"
		case bool:
			why = "a JSON boolean, not an object"
		case nil:
			why = "JSON null, not an object"
		default:
			why = "a JSON number, not an object"
		}
	}
	return fmt.Errorf("the server sent a line that is not a JSON-RPC message (%s): %q", why, wire.CutText(string(text), 200, "…"))
}

// readLine reads one '\n'-terminated line whose message, the line without
// its "\n" or "\r\n", is at most max bytes: the terminator is not part of
// the message (a message of max bytes is taken on the socket as in an HTTP
// body of max bytes).
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	tooLong := func() ([]byte, error) { return nil, fmt.Errorf("message longer than %d bytes", max) }
	var buf []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(buf)+len(frag) > max+2 {
			return tooLong()
		}
		buf = append(buf, frag...)
		if err == nil || len(buf) > 0 && errors.Is(err, io.EOF) {
			if len(bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))) > max {
				return tooLong()
			}
			return buf, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
		if len(buf) > max+1 { // (its last byte may be the '\r' of "\r\n")
			return tooLong()
		}
	}
}

// ReadLine is readLine for servers.
func ReadLine(r *bufio.Reader, max int) ([]byte, error) { return readLine(r, max) }

func (c *Client) callHTTP(ctx context.Context, id string, body []byte) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxMessageBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading response from %s: %w", c.url, err)
	}
	if len(data) > MaxMessageBytes {
		// Reached, and answering too much: TooLarge, not a failure to
		// reach it (which a retry might cure).
		return nil, Errorf(abi.TooLarge, "the answer of %s is larger than %d bytes, the limit; not read further", c.url, MaxMessageBytes)
	}
	// The server's answer is untrusted: bounded in what it decodes to
	// before it is decoded, as an MCP server's is.
	if err := wire.CheckJSONCost(data, wire.DecodeBudget, 0); err != nil {
		return nil, Errorf(abi.TooLarge, "refused the answer of %s before decoding it: %v (the decode budget)", c.url, err)
	}
	var r Response
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s answered HTTP %s with a body that is not a JSON-RPC response: %.200q", c.url, resp.Status, data)
	}
	// A result under a failed status (a proxy's 500, a 401) is no result:
	// it was taken as the tool's, the status ignored (found by p157). A
	// JSON-RPC error under one is that error.
	if (resp.StatusCode < 200 || resp.StatusCode > 299) && r.Error == nil {
		return nil, fmt.Errorf("%s answered HTTP %s with a result; a result under a failed status is not taken", c.url, resp.Status)
	}
	// The answer must be to this request (an error with id null is a
	// refusal of a request the server could not read; a server that gives
	// the id back as a number still answers it).
	if got := string(bytes.TrimSpace(r.ID)); got != strconv.Quote(id) && got != id {
		if !(r.Error != nil && (got == "" || got == "null")) {
			shown := string(r.ID)
			if shown == "" {
				shown = "none"
			}
			return nil, fmt.Errorf("%s answered request id %q with id %.64s: not an answer to it", c.url, id, shown)
		}
	}
	return &r, nil
}

// resultMismatch says how a result that did not decode differs from what
// was wanted, in JSON's words: "is a JSON string, where an object is
// wanted", "has a JSON string at value.n, where a number is wanted".
func resultMismatch(err error) string {
	field, want, got, ok := abi.JSONTypeMismatch(err)
	if !ok || want == "another type" {
		return "does not decode: " + err.Error()
	}
	if got == "bool" {
		got = "boolean"
	}
	where := "is a JSON " + got
	if field != "" {
		where = "has a JSON " + got + " at " + field
	}
	if want == "integer" && got == "number" {
		return where + " that is not an integer in range" // a fraction, or out of range
	}
	article := "a "
	if want == "integer" || want == "array" || want == "object" {
		article = "an "
	}
	return where + ", where " + article + want + " is wanted"
}
