package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/internal/wire"
)

// The streamable-HTTP side around the go-sdk's handler: the Origin check
// (checkOrigin) and the JSON-RPC fixes of fixHTTP.

const (
	sessionHeader  = "Mcp-Session-Id"
	versionHeader  = "Mcp-Protocol-Version"
	metaVersionKey = mcpsdk.MetaKeyProtocolVersion
	// sessionlessVersion is the first MCP version whose requests need no
	// session (SEP-2575); the go-sdk answers them itself.
	sessionlessVersion = "2026-07-28"
	// maxPOSTBody is the go-sdk's request body limit: fixHTTP leaves larger
	// bodies to it (413).
	maxPOSTBody = mcpsdk.DefaultMaxRequestBodyBytes
)

// checkOrigin refuses with 403 a request whose Origin header (sent by
// browsers) is not this server's: its host is not the request's Host,
// and it is neither the origin of the resource URI nor one of
// mcp.http.allowed_origins. That stops a web page from calling tools
// through the user's browser (DNS rebinding included). Requests without
// Origin (MCP clients that are not browsers) pass.
//
// A page of an allowed origin gets the CORS headers its browser needs (a
// client served elsewhere, such as the MCP Inspector, is cross-origin): its
// preflight (OPTIONS, which carries no token) is answered here, and every
// answer — the 401 whose WWW-Authenticate starts the OAuth flow included —
// names the origin and exposes the MCP headers.
func (s *Server) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := r.Header.Get("Origin")
		if o == "" {
			next.ServeHTTP(w, r)
			return
		}
		if !s.originAllowed(r, o) {
			http.Error(w, fmt.Sprintf("Forbidden: Origin %q may not use this server (mcp.http.allowed_origins)", o), http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", o)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", corsExposed)
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
			h.Set("Access-Control-Allow-Headers", corsAllowed)
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// The request headers an MCP client sends and the response headers it
// reads, for CORS.
const (
	corsAllowed = "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"
	corsExposed = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate"
)

func (s *Server) originAllowed(r *http.Request, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return false // "null" (a sandboxed page, a file), or garbage
	}
	if strings.EqualFold(u.Host, r.Host) && (net.ParseIP(u.Hostname()) != nil || strings.EqualFold(u.Hostname(), "localhost")) {
		// Same origin by address. Not by name: a page whose name was
		// rebound to this host's address (DNS rebinding) sends its own
		// name as Host, and so was taken for this server's.
		return true
	}
	o := strings.ToLower(u.Scheme + "://" + u.Host)
	if res, err := url.Parse(s.currentResource()); err == nil && res.Host != "" && strings.ToLower(res.Scheme+"://"+res.Host) == o {
		return true
	}
	for _, a := range s.cfg.HTTP.AllowedOrigins {
		if strings.ToLower(strings.TrimSuffix(a, "/")) == o {
			return true
		}
	}
	return false
}

// unsupportedVersion says whether the go-sdk refuses a request whose
// MCP-Protocol-Version header is v (400): a version it does not speak,
// older than the session-less protocol (a later one it takes for that).
func unsupportedVersion(v string) bool {
	return v != "" && v < sessionlessVersion && !slices.Contains(mcpsdk.SupportedProtocolVersions(), v)
}

// unsupportedVersionText refuses MCP-Protocol-Version v, naming it and the
// versions a session can use: the go-sdk's words named neither it nor only
// those (it lists the session-less versions, which a session refuses).
func unsupportedVersionText(v string) string {
	var usable []string
	for _, sv := range mcpsdk.SupportedProtocolVersions() {
		if sv < sessionlessVersion {
			usable = append(usable, sv)
		}
	}
	return fmt.Sprintf("Bad Request: unsupported %s header %q: this server speaks %s", versionHeader, v, strings.Join(usable, ", "))
}

// postBody is a POST's JSON-RPC payload as fixHTTP reads it: enough to
// route it (the go-sdk decodes and checks it again).
type postBody struct {
	msgs  []rpcMsg
	batch bool
	code  int64 // of the error when the body is not JSON-RPC (0 when it is)
	err   string
	// badID is the id of a request that the go-sdk would answer with
	// another id or not at all (idProblem): fixHTTP refuses the body.
	badID json.RawMessage
	// refuse: fixHTTP refuses the body itself (a batch past maxBatch,
	// which the go-sdk would decode whole first).
	refuse bool
}

// maxBatch bounds the members of a JSON-RPC batch (MCP 2025-03-26; later
// versions take none): the go-sdk decodes each member with a decoder of
// its own (about 64 KB), so 4 MB of pings cost it 6 GB and 25 s.
const maxBatch = 100

// maxUnknownMethods bounds the methods the go-sdk does not know in a batch
// (serveBatch serves it again without each).
const maxUnknownMethods = 4

func batchTooLong(n int) string {
	return fmt.Sprintf("invalid request: a batch of %d messages exceeds the limit of %d; send fewer at once", n, maxBatch)
}

// rpcMsg is one message of a POST: a request (call when id is valid), a
// notification, or a response (method "").
type rpcMsg struct {
	id     jsonrpc.ID
	method string
	params json.RawMessage
	raw    json.RawMessage // as sent
}

func (m *rpcMsg) isCall() bool { return m.method != "" && m.id.IsValid() }

func parsePOST(body []byte) *postBody {
	if !json.Valid(body) {
		msg, _ := wire.JSONSyntax(body)
		return &postBody{code: jsonrpc.CodeParseError, err: "parse error: the body is not JSON: " + msg}
	}
	if i := wire.InvalidUTF8(body); i >= 0 { // (as a stdio line: check)
		return &postBody{code: jsonrpc.CodeParseError, err: fmt.Sprintf("parse error: the body is not valid UTF-8 (byte 0x%02x at offset %d)", body[i], i)}
	}
	body = bytes.TrimSpace(body)
	if i := wire.LoneSurrogate(body); i >= 0 {
		return &postBody{code: jsonrpc.CodeParseError, err: "parse error: " + wire.LoneSurrogateMessage(body, i)}
	}
	p := &postBody{}
	var raws []json.RawMessage // (not holding body: Unmarshal would write into it)
	if body[0] == '[' {
		p.batch = true
		if n := wire.ArrayLen(body); n > maxBatch {
			return &postBody{code: jsonrpc.CodeInvalidRequest, err: batchTooLong(n), batch: true, refuse: true}
		}
		if json.Unmarshal(body, &raws) != nil || len(raws) == 0 {
			return &postBody{code: jsonrpc.CodeInvalidRequest, err: "invalid request: empty batch", batch: true}
		}
	} else {
		raws = []json.RawMessage{body}
	}
	for _, raw := range raws {
		var w struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      any             `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		err := json.Unmarshal(raw, &w)
		if err != nil && w.JSONRPC == "2.0" && w.Method != "" {
			// (the rest is decoded past a type error)
			if why := numberIDProblem(raw); why != "" { // an id past a float64 (1e999)
				return &postBody{code: jsonrpc.CodeInvalidRequest, err: "invalid request: " + why, batch: p.batch, badID: idOf(raw)}
			}
		}
		if err != nil || w.JSONRPC != "2.0" {
			return &postBody{code: jsonrpc.CodeInvalidRequest, err: "invalid request: not a JSON-RPC 2.0 message", batch: p.batch}
		}
		id, err := jsonrpc.MakeID(w.ID)
		if err != nil {
			why := idTypeProblem(raw)
			if why == "" {
				why = err.Error()
			}
			return &postBody{code: jsonrpc.CodeInvalidRequest, err: "invalid request: " + why, batch: p.batch}
		}
		if w.Method != "" {
			if why := idProblem(&jsonrpc.Request{Method: w.Method, Params: w.Params}, raw); why != "" {
				return &postBody{code: jsonrpc.CodeInvalidRequest, err: "invalid request: " + why, batch: p.batch, badID: idOf(raw)}
			}
		}
		m := rpcMsg{id: id, method: w.Method, params: w.Params, raw: raw}
		if m.isCall() && slices.ContainsFunc(p.msgs, func(o rpcMsg) bool { return o.isCall() && o.id == id }) {
			// The go-sdk would run one and drop the other unanswered.
			return &postBody{code: jsonrpc.CodeInvalidRequest, err: fmt.Sprintf("invalid request: request id %s appears twice in the batch; the batch was not processed", idOf(raw)),
				batch: true, badID: idOf(raw)}
		}
		p.msgs = append(p.msgs, m)
	}
	return p
}

// call is the request of a body that is one request (nil otherwise).
func (p *postBody) call() *rpcMsg {
	if p.code != 0 || p.batch || len(p.msgs) != 1 || !p.msgs[0].isCall() {
		return nil
	}
	return &p.msgs[0]
}

// opensSession says whether a POST without Mcp-Session-Id may go to the
// go-sdk: initialize, and what the go-sdk answers itself for clients
// negotiating a session-less version (server/discover, requests whose
// Mcp-Protocol-Version is 2026-07-28 or later). A request carrying only the
// session-less protocol's _meta key (metaVersionKey) is not: the go-sdk
// reads its missing header as 2025-03-26 and answers that this version is
// not supported, listing it among those that are.
func (p *postBody) opensSession(r *http.Request) bool {
	if v := r.Header.Get(versionHeader); v >= sessionlessVersion {
		return true
	}
	c := p.call()
	return c != nil && (c.method == "initialize" || c.method == "server/discover")
}

// rawID is id as JSON.
func rawID(id jsonrpc.ID) json.RawMessage {
	b, err := json.Marshal(id.Raw())
	if err != nil {
		return nil
	}
	return b
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorJSON(id, code, msg))
}

// httpCall is a request in flight on a session, which the client may
// cancel.
type httpCall struct {
	session   string
	id        jsonrpc.ID
	user      string // the token's user: only they may cancel it
	cancelled atomic.Bool
}

type httpCallKey struct {
	session string
	user    string
	id      jsonrpc.ID
}

// fixHTTP makes the go-sdk's streamable-HTTP handler answer as MCP
// 2025-06-18 asks where it does not:
//   - a POST without Mcp-Session-Id that is not initialize gets 400 with a
//     JSON-RPC error (the go-sdk would open a session for it, and answer
//     a request with an error of code 0 in a 200 stream);
//   - a request for an unknown method gets a JSON-RPC -32601 error (200,
//     application/json); the go-sdk's other plain-text 400 answers to a
//     POST become JSON-RPC errors (-32700 for a body that is not JSON,
//     -32600 otherwise; the request's id when there is one);
//   - errors of code 0 get a standard code (fixErrorCode), and params
//     that do not decode are said in words (explainParams);
//   - a request the client cancels (notifications/cancelled) gets no
//     response: its stream ends without one.
func (s *Server) fixHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		versionErr := ""
		if sid := r.Header.Get(sessionHeader); sid != "" {
			s.touchSession(sid, userOf(r))
			if v := s.sessionVersion(sid, userOf(r)); v != "" {
				// The go-sdk applies the rules of the header's version
				// (2025-03-26 without one: batches), not the session's.
				switch got := r.Header.Get(versionHeader); {
				case got == "":
					r.Header.Set(versionHeader, v)
				case got != v && (got >= sessionlessVersion || slices.Contains(mcpsdk.SupportedProtocolVersions(), got)):
					// (an older unsupported one: the go-sdk's 400 names
					// those it speaks; a later one it takes for the
					// session-less protocol)
					versionErr = fmt.Sprintf("Bad Request: %s header %q is not the version this session negotiated at initialize, %q: send that one", versionHeader, got, v)
				}
			}
		}
		if got := r.Header.Get(versionHeader); versionErr == "" && r.Method != http.MethodPost && unsupportedVersion(got) {
			// (a POST's refusal is reworded from the go-sdk's: finish)
			versionErr = unsupportedVersionText(got)
		}
		if versionErr != "" && r.Method != http.MethodPost {
			http.Error(w, versionErr, http.StatusBadRequest)
			return
		}
		if sid := r.Header.Get(sessionHeader); sid != "" && r.Method == http.MethodDelete && !unsupportedVersion(r.Header.Get(versionHeader)) {
			// Only a DELETE the go-sdk takes ends the session's calls:
			// one it refuses (400, a version it does not speak) left the
			// session open with its calls cancelled.
			s.endSession(sid, userOf(r))
		}
		if r.Method == http.MethodGet && s.writeTimeout > 0 {
			// The session's stream of notifications: the go-sdk writes
			// them to each session in turn, so one whose client stopped
			// reading would hold every later session's for ever.
			defer func() { _ = http.NewResponseController(w).SetWriteDeadline(time.Time{}) }()
			w = &deadlineWriter{ResponseWriter: w, timeout: s.writeTimeout}
		}
		if sid := r.Header.Get(sessionHeader); r.Method == http.MethodGet && sid != "" {
			s.serveGET(w, r, sid, next)
			return
		}
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if r.Method != http.MethodPost || ct != "application/json" || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxPOSTBody+1))
		if b, ok := bytes.CutPrefix(body, utf8BOM); ok {
			// A byte order mark before the JSON text (.NET's
			// Encoding.UTF8) is ignored, as on stdio (RFC 8259 §8.1).
			body = b
			if r.ContentLength > 0 {
				r.ContentLength -= int64(len(utf8BOM))
			}
		}
		rest := r.Body
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), rest), rest}
		if err != nil || int64(len(body)) > maxPOSTBody || len(bytes.TrimSpace(body)) == 0 {
			next.ServeHTTP(w, r) // the go-sdk refuses it
			return
		}
		in := parsePOST(body)
		if in.refuse || in.code == jsonrpc.CodeParseError {
			// (not one JSON text: the go-sdk reads the first value, an
			// invalid UTF-8 byte or a lone surrogate as U+FFFD, and
			// drops what follows it)
			writeRPCError(w, http.StatusBadRequest, nil, in.code, in.err)
			return
		}
		if in.badID != nil {
			id := in.badID
			if in.batch {
				id = nil
			}
			writeRPCError(w, http.StatusBadRequest, id, in.code, in.err)
			return
		}
		if versionErr != "" {
			var id json.RawMessage
			if c := in.call(); c != nil {
				id = rawID(c.id)
			}
			writeRPCError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, versionErr)
			return
		}
		sid := r.Header.Get(sessionHeader)
		if sid == "" && !in.opensSession(r) {
			code, msg, id := in.code, in.err, json.RawMessage(nil)
			if code == 0 {
				code, msg = jsonrpc.CodeInvalidRequest, "Bad Request: no Mcp-Session-Id header: send initialize first, then the session id it returns"
			}
			if c := in.call(); c != nil {
				id = rawID(c.id)
			}
			writeRPCError(w, http.StatusBadRequest, id, code, msg)
			return
		}
		fw := &rpcWriter{ResponseWriter: w, in: in, timeout: s.writeTimeout, version: r.Header.Get(versionHeader)}
		// The server has no write timeout (GET streams are long-lived): a
		// write to this response that makes no progress for writeTimeout
		// fails, and the deadline is cleared for the connection's next
		// request.
		defer func() { _ = http.NewResponseController(w).SetWriteDeadline(time.Time{}) }()
		if sid != "" && in.code == 0 {
			// The go-sdk refuses another user's request on a session
			// (403) only later: a cancel counts for the calls of the
			// user who sent it.
			user := userOf(r)
			s.noteCancels(sid, user, in)
			fw.calls = s.trackCalls(sid, user, in)
			defer s.untrackCalls(fw.calls)
		}
		if c := in.call(); sid == "" && c != nil && c.method == "initialize" {
			// The session is noted before its id reaches the client:
			// noted after the answer, a DELETE the client sent at once
			// could come first and find it unknown, leaving its calls
			// running (TestSessionKnownBeforeInitializeAnswer).
			user := userOf(r)
			fw.opened = func(id string) { s.openedSession(id, user) }
		}
		next.ServeHTTP(fw, r)
		if sid != "" && in.batch {
			s.serveBatch(w, r, next, fw)
		} else {
			fw.finish()
		}
	})
}

// serveBatch finishes a batch POST of a session (fw: the go-sdk's answer
// to it). The go-sdk refuses a batch holding a method it does not know as
// a whole (400), serving none of it; JSON-RPC answers each request of a
// batch. So the unknown method's requests are answered -32601 with their
// ids, its notifications dropped (JSON-RPC answers none), and the rest of
// the batch is served again, once per unknown method. So too for a member
// the go-sdk refuses as invalid (invalidMember): answered -32600 when it
// is a request, dropped when it is a notification.
// The go-sdk decodes each member of the batch again in each pass (about
// 64 KB each), so the passes are bounded: past maxUnknownMethods unknown
// methods the batch is refused as a whole (none of it was served).
func (s *Server) serveBatch(w http.ResponseWriter, r *http.Request, next http.Handler, fw *rpcWriter) {
	var unknown []json.RawMessage // the -32601 answers
	var names []string            // the unknown methods
	for {
		m := fw.unknownMethod()
		bad, why := -1, ""
		if m == "" {
			if bad, why = fw.invalidMember(); bad < 0 {
				break
			}
		}
		name := strconv.Quote(m)
		if m == "" {
			name = strconv.Quote(fw.in.msgs[bad].method) + " (invalid)"
		}
		if names = append(names, name); len(names) > maxUnknownMethods {
			h := w.Header()
			h.Del("Content-Type")
			h.Del("X-Content-Type-Options")
			h.Del("Content-Length")
			writeRPCError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
				"invalid request: the batch names more than %d methods this server does not know or requests it refuses (%s); none of it was processed: send them apart",
				maxUnknownMethods, strings.Join(names, ", ")))
			return
		}
		rest := &postBody{batch: true}
		for i, msg := range fw.in.msgs {
			switch {
			case m != "" && msg.method == m:
				if msg.isCall() {
					unknown = append(unknown, errorJSON(rawID(msg.id), jsonrpc.CodeMethodNotFound, fmt.Sprintf("method not found: %q", m)))
				}
			case m == "" && i == bad:
				if msg.isCall() {
					unknown = append(unknown, errorJSON(rawID(msg.id), jsonrpc.CodeInvalidRequest, why))
				}
			default:
				rest.msgs = append(rest.msgs, msg)
			}
		}
		if len(rest.msgs) == len(fw.in.msgs) {
			break // (the go-sdk named no method of the batch)
		}
		h := w.Header()
		h.Del("Content-Type")
		h.Del("X-Content-Type-Options")
		h.Del("Content-Length")
		if len(rest.msgs) == 0 {
			writeAnswers(w, unknown)
			return
		}
		raws := make([][]byte, len(rest.msgs))
		for i, msg := range rest.msgs {
			raws[i] = msg.raw
		}
		body := append(append([]byte{'['}, bytes.Join(raws, []byte{','})...), ']')
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		fw = &rpcWriter{ResponseWriter: w, in: rest, timeout: s.writeTimeout, calls: fw.calls, hold202: len(unknown) > 0, version: fw.version}
		next.ServeHTTP(fw, r)
	}
	switch {
	case fw.held != 0 && fw.in.code == 0 && fw.version < batchesRemoved && (len(unknown) > 0 || slices.ContainsFunc(fw.in.msgs, func(m rpcMsg) bool { return m.isCall() })):
		// The go-sdk refused the rest as a whole, for one of its requests
		// (one that lacks the params its method requires): each request
		// is answered with its id, rather than by one error of id null
		// that answers none of them.
		why := strings.TrimSpace(fw.buf.String()) + "; the batch was not processed"
		for _, msg := range fw.in.msgs {
			if msg.isCall() {
				unknown = append(unknown, errorJSON(rawID(msg.id), jsonrpc.CodeInvalidRequest, why))
			}
		}
		h := w.Header()
		h.Del("X-Content-Type-Options")
		h.Del("Content-Length")
		b, _ := json.Marshal(unknown)
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(b)
	case len(unknown) == 0 || fw.held != 0:
		fw.finish()
	case fw.held202:
		writeAnswers(w, unknown) // the rest were notifications
	case strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream"):
		// The go-sdk's stream of the other answers has ended; the
		// request goes on until this returns.
		for _, a := range unknown {
			fw.deadline()
			if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", a); err != nil {
				return
			}
		}
		fw.deadline()
		_ = http.NewResponseController(w).Flush()
	}
}

// writeAnswers answers a batch with answers (202 when there are none).
func writeAnswers(w http.ResponseWriter, answers []json.RawMessage) {
	if len(answers) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	b, _ := json.Marshal(answers)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// userOf is the user of a request's verified token ("" without one).
func userOf(r *http.Request) string {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		return ti.UserID
	}
	return ""
}

// noteCancels marks the requests that the notifications/cancelled of in
// name as cancelled, when user made them.
func (s *Server) noteCancels(sid, user string, in *postBody) {
	for _, m := range in.msgs {
		if m.method != "notifications/cancelled" || m.id.IsValid() {
			continue
		}
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(m.params, &p) != nil {
			continue
		}
		id, err := jsonrpc.MakeID(p.RequestID)
		if err != nil || !id.IsValid() {
			continue
		}
		s.httpMu.Lock()
		if c := s.httpCalls[httpCallKey{sid, user, id}]; c != nil {
			c.cancelled.Store(true)
		}
		s.httpMu.Unlock()
	}
}

// trackCalls registers the requests of in (but initialize, which may not
// be cancelled) until untrackCalls.
func (s *Server) trackCalls(sid, user string, in *postBody) []*httpCall {
	var out []*httpCall
	s.httpMu.Lock()
	defer s.httpMu.Unlock()
	for _, m := range in.msgs {
		if !m.isCall() || m.method == "initialize" {
			continue
		}
		k := httpCallKey{sid, user, m.id}
		if s.httpCalls[k] != nil {
			continue // a duplicate in flight: the go-sdk refuses it
		}
		c := &httpCall{session: sid, id: m.id, user: user}
		s.httpCalls[k] = c
		out = append(out, c)
	}
	return out
}

func (s *Server) untrackCalls(calls []*httpCall) {
	s.httpMu.Lock()
	defer s.httpMu.Unlock()
	for _, c := range calls {
		delete(s.httpCalls, httpCallKey{c.session, c.user, c.id})
	}
}

// deadlineWriter bounds each write (and flush) to the client by timeout.
type deadlineWriter struct {
	http.ResponseWriter
	timeout time.Duration
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	return writeProgress(w.ResponseWriter, p, w.timeout)
}

// writeProgress writes p to w under a write deadline of timeout (none
// when 0) renewed every wire.ProgressChunk: a large result to a slow but
// steady reader is not cut off (the go-sdk writes one as one event,
// TestSlowReaderGetsWholeResult).
func writeProgress(w http.ResponseWriter, p []byte, timeout time.Duration) (n int, err error) {
	return wire.WriteProgress(w, http.NewResponseController(w).SetWriteDeadline, p, timeout)
}

func (w *deadlineWriter) FlushError() error {
	rc := http.NewResponseController(w.ResponseWriter)
	_ = rc.SetWriteDeadline(time.Now().Add(w.timeout))
	return rc.Flush()
}

func (w *deadlineWriter) Flush() { _ = w.FlushError() }

func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// rpcWriter is the ResponseWriter fixHTTP hands the go-sdk.
type rpcWriter struct {
	http.ResponseWriter
	timeout time.Duration // of each write (0: none)
	in      *postBody
	calls   []*httpCall
	sent    bool   // the header went out
	hold202 bool   // hold back a 202 (serveBatch has answers to send)
	version string // the request's Mcp-Protocol-Version
	held202 bool
	held    int          // status of a plain-text error held back to be rewritten (0: none)
	buf     bytes.Buffer // its text
	// opened is called with the new session's id (an initialize's
	// Mcp-Session-Id) as its answer's header goes out, once.
	opened func(id string)
}

// open calls w.opened once, when the answer about to go out (status
// code) opens a session.
func (w *rpcWriter) open(code int) {
	if f := w.opened; f != nil {
		w.opened = nil
		if id := w.Header().Get(sessionHeader); id != "" && code < 300 {
			f(id)
		}
	}
}

func (w *rpcWriter) WriteHeader(code int) {
	if w.sent || w.held != 0 {
		return
	}
	if code == http.StatusAccepted && w.hold202 {
		w.held202 = true
		return
	}
	if code == http.StatusBadRequest && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.held = code
		return
	}
	w.open(code)
	w.sent = true
	w.ResponseWriter.WriteHeader(code)
}

// deadline bounds the next write to the client.
func (w *rpcWriter) deadline() {
	if w.timeout > 0 {
		_ = http.NewResponseController(w.ResponseWriter).SetWriteDeadline(time.Now().Add(w.timeout))
	}
}

func (w *rpcWriter) Write(p []byte) (int, error) {
	if w.held != 0 {
		return w.buf.Write(p)
	}
	if !w.sent {
		w.open(http.StatusOK)
	}
	w.sent = true
	w.deadline()
	out, drop := w.filter(p)
	if drop {
		return len(p), nil
	}
	if out == nil {
		return writeProgress(w.ResponseWriter, p, w.timeout)
	}
	if _, err := writeProgress(w.ResponseWriter, out, w.timeout); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *rpcWriter) FlushError() error {
	if w.held != 0 {
		return nil
	}
	if !w.sent {
		w.open(http.StatusOK) // (a flush sends the header)
	}
	w.deadline()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *rpcWriter) Flush() { _ = w.FlushError() }

func (w *rpcWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// cancelled says whether the client cancelled request id of this POST
// (any of its requests when id is nil).
func (w *rpcWriter) cancelled(id *jsonrpc.ID) bool {
	for _, c := range w.calls {
		if c.cancelled.Load() && (id == nil || c.id == *id) {
			return true
		}
	}
	return false
}

// filter looks at one write of the go-sdk (an SSE event, or a JSON
// response): it returns the write with an error code fixed, or drop for
// the response of a cancelled request (nil, false: write p as it is).
func (w *rpcWriter) filter(p []byte) (out []byte, drop bool) {
	cancels := w.cancelled(nil)
	if !cancels && !bytes.Contains(p, []byte(`"code":0`)) && !bytes.Contains(p, []byte("invalid params: unmarshaling ")) {
		return nil, false
	}
	before, data, after, ok := sseData(p)
	if !ok {
		return nil, false
	}
	msg, err := jsonrpc.DecodeMessage(data)
	resp, isResp := msg.(*jsonrpc.Response)
	if err != nil || !isResp {
		return nil, false
	}
	if cancels && w.cancelled(&resp.ID) {
		return nil, true
	}
	fixed := fixResponse(resp)
	if fixed == resp {
		return nil, false
	}
	enc, err := jsonrpc.EncodeMessage(fixed)
	if err != nil {
		return nil, false
	}
	return append(append(append([]byte{}, before...), enc...), after...), false
}

// sseData splits one SSE event (or a bare JSON body) around its data.
func sseData(p []byte) (before, data, after []byte, ok bool) {
	if t := bytes.TrimSpace(p); len(t) > 0 && t[0] == '{' {
		return nil, t, nil, true
	}
	i := 0
	if !bytes.HasPrefix(p, []byte("data: ")) {
		j := bytes.Index(p, []byte("\ndata: "))
		if j < 0 {
			return nil, nil, nil, false
		}
		i = j + 1
	}
	start := i + len("data: ")
	end := bytes.IndexByte(p[start:], '\n')
	if end < 0 {
		end = len(p) - start
	}
	return p[:start], p[start : start+end], p[start+end:], true
}

// unknownMethod is the method the held answer of the go-sdk says it does
// not know ("" when it says something else).
func (w *rpcWriter) unknownMethod() string {
	if w.held != http.StatusBadRequest {
		return ""
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(w.buf.String()), "JSON RPC not handled: ")
	if !ok {
		return ""
	}
	q, ok := strings.CutSuffix(rest, " unsupported")
	if !ok {
		return ""
	}
	m, err := strconv.Unquote(q)
	if err != nil {
		return ""
	}
	return m
}

// paramsOptional are the methods a client may send without params (the
// go-sdk's, from the MCP schema); the others it refuses without them.
var paramsOptional = map[string]bool{"ping": true, "tools/list": true, "prompts/list": true, "resources/list": true,
	"resources/templates/list": true, "server/discover": true, "notifications/cancelled": true,
	"notifications/initialized": true, "notifications/roots/list_changed": true}

// invalidMember is the index in the batch of the member for which the
// held answer of the go-sdk refuses the batch as a whole — a request
// without the params its method requires, a request of a notification's
// method, a notification of a request's method — and what to answer it
// (-1 when the answer says something else).
func (w *rpcWriter) invalidMember() (int, string) {
	if w.held != http.StatusBadRequest {
		return -1, ""
	}
	msg := strings.TrimSpace(w.buf.String())
	why, ok := strings.CutPrefix(msg, "invalid request: ")
	if !ok {
		return -1, ""
	}
	for _, kind := range []struct {
		prefix string
		call   bool
	}{{"unexpected id for ", true}, {"missing id for ", false}} {
		if q, ok := strings.CutPrefix(why, kind.prefix); ok {
			m, err := strconv.Unquote(q)
			if err != nil {
				return -1, ""
			}
			for i, x := range w.in.msgs {
				if x.method == m && x.isCall() == kind.call {
					return i, msg
				}
			}
			return -1, ""
		}
	}
	if why == `missing required "params"` {
		for i, x := range w.in.msgs {
			if x.method != "" && !paramsOptional[x.method] && len(x.params) == 0 {
				return i, fmt.Sprintf("invalid request: %s requires params", x.method)
			}
		}
	}
	return -1, ""
}

// finish writes the plain-text 400 answer held back, as a JSON-RPC error.
func (w *rpcWriter) finish() {
	if w.held == 0 {
		return
	}
	msg := strings.TrimSpace(w.buf.String())
	if list, ok := strings.CutPrefix(msg, "Bad Request: Unsupported protocol version (supported versions: "); ok {
		// The go-sdk lists the session-less versions too, which a
		// session (this server) refuses.
		var usable []string
		for _, v := range strings.Split(strings.TrimSuffix(list, ")"), ",") {
			if v = strings.TrimSpace(v); v != "" && v < sessionlessVersion {
				usable = append(usable, v)
			}
		}
		msg = fmt.Sprintf("Bad Request: unsupported %s header %q: this server speaks %s", versionHeader, w.version, strings.Join(usable, ", "))
	}
	status, code, id := w.held, int64(jsonrpc.CodeInvalidRequest), json.RawMessage(nil)
	switch c := w.in.call(); {
	case w.in.code != 0:
		code, msg = w.in.code, w.in.err
	case c != nil:
		id = rawID(c.id)
		if strings.Contains(msg, "not handled") || strings.Contains(msg, "method not found") {
			status, code, msg = http.StatusOK, jsonrpc.CodeMethodNotFound, fmt.Sprintf("method not found: %q", c.method)
		}
	}
	h := w.ResponseWriter.Header()
	h.Del("X-Content-Type-Options")
	h.Del("Content-Length")
	writeRPCError(w.ResponseWriter, status, id, code, msg)
}
