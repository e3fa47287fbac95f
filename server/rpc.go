package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/editdist"
	"github.com/aios-host/aios-host/internal/jsonmember"
	"github.com/aios-host/aios-host/internal/wire"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

// session is one authenticated caller: a socket connection or one HTTP
// request.
type session struct {
	agent     string
	transport string // "unix" or "http"
	// origin is the credential mapped to agent, written into the audit
	// records of the session's calls.
	origin host.Origin
	// notify sends a notification on the same connection; nil for HTTP POST.
	notify func(n *jsonrpc.Notification) error
	subs   *subscriptions
	// inflight are the requests of a socket connection running, by id,
	// for notifications/cancelled; nil for HTTP (a client gives up on a
	// request by closing it).
	inflight *inflightRequests
}

// CancelMethod is the notification that cancels a request in flight on
// the same connection ({requestId, reason?}, as MCP's): the socket's
// requests share one connection, which a client that gives up on one of
// them cannot close.
const CancelMethod = "notifications/cancelled"

// errCancelledByClient is the cause of a request that its client
// cancelled with CancelMethod.
var errCancelledByClient = errors.New("its client cancelled it (" + CancelMethod + ")")

// inflightRequests maps the ids of a connection's requests in flight to
// their cancel functions (several for an id a client reused).
type inflightRequests struct {
	mu sync.Mutex
	m  map[string][]*context.CancelCauseFunc
}

// idKey is the key of a request id: a string by its value (however
// escaped), a number or null by its text.
func idKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) >= 2 && raw[0] == '"' {
		if bytes.IndexByte(raw, '\\') < 0 {
			return "s" + string(raw[1:len(raw)-1]) // no escape: the text is the value
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return "s" + s
		}
	}
	return "n" + string(raw)
}

// track registers a request of id run under ctx; the context returned is
// cancelled by cancel(id), and done must be called when the request ends.
func (r *inflightRequests) track(ctx context.Context, id json.RawMessage) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	k := idKey(id)
	r.mu.Lock()
	if r.m == nil {
		r.m = map[string][]*context.CancelCauseFunc{}
	}
	r.m[k] = append(r.m[k], &cancel)
	r.mu.Unlock()
	return ctx, func() {
		r.mu.Lock()
		r.m[k] = slices.DeleteFunc(r.m[k], func(c *context.CancelCauseFunc) bool { return c == &cancel })
		if len(r.m[k]) == 0 {
			delete(r.m, k)
		}
		r.mu.Unlock()
		cancel(nil)
	}
}

// cancel cancels the requests of id in flight and says how many.
func (r *inflightRequests) cancel(id json.RawMessage, reason string) int {
	var cause error = errCancelledByClient
	if reason = strings.TrimSpace(reason); reason != "" {
		cause = &clientCancel{reason: reason}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fns := r.m[idKey(id)]
	for _, c := range fns {
		(*c)(cause)
	}
	return len(fns)
}

// clientCancel is errCancelledByClient with the reason the client gave
// (notifications/cancelled's "reason"), which the call's answer and its
// audit record then say: the client's words were dropped
// (TestCancelledNotificationNamesItsCause).
type clientCancel struct{ reason string }

func (c *clientCancel) Error() string {
	return fmt.Sprintf("its client cancelled it (%s, reason %q)", CancelMethod, wire.CutText(strings.ToValidUTF8(c.reason, "\uFFFD"), 200, "…"))
}

func (c *clientCancel) Is(target error) bool { return target == errCancelledByClient }

// decodeBudgetFactor × max_body_bytes bounds what one message may decode
// to (an estimate, internal/wire.CheckJSONCost): 128 MiB by default, which
// any message of ordinary values passes (an array of small numbers costs
// 16 times its bytes).
const decodeBudgetFactor = 16

// maxParallelBatch bounds how many requests of one batch run at once.
const maxParallelBatch = 8

// handleMessage processes one message (a request or a batch) and returns
// the encoded response, or nil when nothing is to be sent (notifications
// only).
func (s *Server) handleMessage(ctx context.Context, sess *session, body []byte) []byte {
	if !json.Valid(body) {
		return mustMarshal(errorResponse(nil, parseError(body)))
	}
	// JSON text is UTF-8 (RFC 8259 §8.1); encoding/json accepts invalid
	// bytes in strings, and an id echoed with them would make the answer
	// itself unreadable to a strict client.
	if i := wire.InvalidUTF8(body); i >= 0 {
		return mustMarshal(errorResponse(nil, jsonrpc.Protocol(jsonrpc.CodeParseError, "parse error: the message is not valid UTF-8 (byte 0x%02x at offset %d)", body[i], i)))
	}
	// Nor is an escaped lone surrogate ("\ud800"): read as U+FFFD, it would
	// be another string, and two member names would become one.
	if i := wire.LoneSurrogate(body); i >= 0 {
		return mustMarshal(errorResponse(nil, jsonrpc.Protocol(jsonrpc.CodeParseError, "parse error: %s", wire.LoneSurrogateMessage(body, i))))
	}
	// What a message decodes to is bounded before it is decoded: 7 MiB of
	// [{},{},…] would take 440 MiB, and a connection runs 32 at once.
	budget := s.cfg.MaxBodyBytes * decodeBudgetFactor
	// A single request's refusal carries its id (its members decoded as
	// raw text: about the message's size), so that a client with several
	// in flight knows which one it is.
	idOf := func() json.RawMessage {
		var id json.RawMessage
		if !jsonrpc.IsBatch(body) {
			id, _ = requestID(body)
		}
		return id
	}
	tooDear := func() []byte {
		return mustMarshal(errorResponse(idOf(), jsonrpc.Errorf(abi.TooLarge,
			"invalid request: a message of %d bytes would decode to more than %s of host memory (%d × server.max_body_bytes; many small values such as empty objects)",
			len(body), wire.SizeText(budget), decodeBudgetFactor)))
	}
	// A large message also takes its share of what all those being
	// handled may decode to (limits.max_decode_bytes) until it is
	// answered. A single request that may wait for it is keyed for
	// notifications/cancelled first, and its socket told so (found by
	// p173: keyed only after the wait, it stopped its connection from
	// reading anything, a cancel of it too, for up to 10 s).
	if len(body) >= host.DecodeShareFloor && sess.inflight != nil && !jsonrpc.IsBatch(body) && !isCancel(body) {
		if id, hasID := requestID(body); hasID && validID(id) {
			var done func()
			ctx, done = sess.inflight.track(ctx, id)
			defer done()
			ctx = context.WithValue(ctx, trackedKey{}, true)
		}
		keyed(ctx)
	}
	if len(body) >= host.DecodeShareFloor && jsonrpc.IsBatch(body) {
		// A large batch's members are keyed once it is decoded, after
		// the wait for limits.max_decode_bytes: its connection reads on
		// meanwhile (a cancel of a member read then finds nothing).
		keyed(ctx)
	}
	release, tooLarge, err := s.h.ReserveJSON(ctx, body, budget)
	if tooLarge {
		out := tooDear()
		s.recordUndecodedCall(ctx, sess, body, abi.Errorf(abi.TooLarge, "a message of %d bytes would decode to more than %s of host memory (%d × server.max_body_bytes)", len(body), wire.SizeText(budget), decodeBudgetFactor))
		return out
	}
	if err != nil {
		// A tools/call refused here is recorded as any refused call
		// (found by p173: it had no audit record).
		s.recordUndecodedCall(ctx, sess, body, err)
		return mustMarshal(errorResponse(idOf(), jsonrpc.FromError(err)))
	}
	defer release()
	if !jsonrpc.IsBatch(body) {
		resp := s.handleOne(ctx, sess, body)
		if resp == nil {
			return nil
		}
		return mustMarshal(resp)
	}
	if n := jsonrpc.BatchLen(body); n > s.cfg.MaxBatch {
		// (counted, not decoded: a million small members would cost
		// 130 MB to be refused)
		return mustMarshal(errorResponse(nil, jsonrpc.Errorf(abi.TooLarge, "invalid request: batch of %d requests exceeds the limit of %d (server.max_batch)", n, s.cfg.MaxBatch)))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		return mustMarshal(errorResponse(nil, jsonrpc.Protocol(jsonrpc.CodeParseError, "parse error: %v", err)))
	}
	if len(items) == 0 {
		return mustMarshal(errorResponse(nil, jsonrpc.Protocol(jsonrpc.CodeInvalidRequest, "invalid request: empty batch")))
	}
	if len(items) > s.cfg.MaxBatch {
		return mustMarshal(errorResponse(nil, jsonrpc.Errorf(abi.TooLarge, "invalid request: batch of %d requests exceeds the limit of %d (server.max_batch)", len(items), s.cfg.MaxBatch)))
	}
	// The answers together are bounded (server.max_batch_answer_bytes):
	// 5 KB of [{"method":"tools/list"},…] asked for a 76 MB answer, 1.4 GB
	// allocated. Once the bytes answered pass the bound, the requests not
	// started yet are not run, and an answer that passes it is replaced:
	// each of those is a TooLarge error with its id.
	// Every request of the batch is keyed for notifications/cancelled
	// before any runs, and its socket told so: keyed as each started, a
	// cancel sent right behind the batch was often read first, found
	// nothing and was lost (found by p165), and a member waiting for
	// one of the batch's maxParallelBatch places could not be cancelled.
	// Each member is decoded once, here, for its id and for handleDecoded.
	ctxs := make([]context.Context, len(items))
	decoded := make([]map[string]json.RawMessage, len(items))
	if sess.inflight != nil {
		for i, it := range items {
			var m map[string]json.RawMessage
			if json.Unmarshal(it, &m) != nil || m == nil {
				continue // handleOne answers it
			}
			decoded[i] = m
			var method string
			_ = json.Unmarshal(m["method"], &method)
			if id := clearID(it, m); id != nil && method != CancelMethod {
				mctx, done := sess.inflight.track(ctx, id)
				defer done()
				ctxs[i] = context.WithValue(mctx, trackedKey{}, true)
			}
		}
	}
	keyed(ctx)
	out := make([][]byte, len(items))
	var used atomic.Int64
	// ran says whether the request ran: one whose answer is left out
	// (a tools/call whose effects happened) must not be taken for one
	// not run, which the client may simply send again.
	notRun := fmt.Sprintf("the answers of this batch pass %d bytes (server.max_batch_answer_bytes): this request was not run; send it again on its own or in a later batch", s.cfg.MaxBatchAnswer)
	over := func(id json.RawMessage, ran bool) []byte {
		e := jsonrpc.Errorf(abi.TooLarge, "%s", notRun)
		if ran {
			e = jsonrpc.Errorf(abi.TooLarge,
				"this request ran, but its answer is left out: the answers of this batch pass %d bytes (server.max_batch_answer_bytes); what it did is done (a tools/call's effects), and sent again it runs again", s.cfg.MaxBatchAnswer)
		}
		e.Data.Details = map[string]any{"ran": ran}
		return mustMarshal(errorResponse(id, e))
	}
	sem := make(chan struct{}, maxParallelBatch)
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			// A member that is not a request object is answered as
			// handleOne answers it (invalid request, cheap and small),
			// not "not run; send it again", which it never can be.
			if used.Load() > s.cfg.MaxBatchAnswer && isObject(it) {
				if id, ok := requestID(it); ok {
					out[i] = over(id, false)
				}
				// A tools/call not run is recorded as any refused
				// call (found by p163: it had no audit record).
				var m struct {
					Method string          `json:"method"`
					Params json.RawMessage `json:"params"`
				}
				if json.Unmarshal(it, &m) == nil && m.Method == "tools/call" {
					s.recordRefusedCall(ctx, sess, m.Params, &abi.ToolError{Code: abi.TooLarge, Message: notRun})
				}
				return
			}
			mctx := ctx
			if ctxs[i] != nil {
				mctx = ctxs[i]
			}
			var r *jsonrpc.Response
			if decoded[i] != nil {
				r = s.handleDecoded(mctx, sess, it, decoded[i])
			} else {
				r = s.handleOne(mctx, sess, it)
			}
			if r == nil {
				return
			}
			b := mustMarshal(r)
			if used.Add(int64(len(b))) > s.cfg.MaxBatchAnswer {
				// An answer no longer than the error that would replace
				// it is kept: leaving it out saves nothing, and loses
				// what the request did (a subscription's id, which the
				// client needs to receive and end it).
				if e := over(r.ID, true); len(e) < len(b) {
					b = e
				}
			}
			out[i] = b
		}()
	}
	wg.Wait()
	var buf bytes.Buffer
	for _, b := range out {
		if b == nil {
			continue
		}
		if buf.Len() == 0 {
			buf.WriteByte('[')
		} else {
			buf.WriteByte(',')
		}
		buf.Write(b)
	}
	if buf.Len() == 0 {
		return nil
	}
	buf.WriteByte(']')
	return buf.Bytes()
}

// parseError is the -32700 for a body that is not JSON, saying what the
// decoder found and at which byte (data.details.offset, from 1, as
// encoding/json counts), so that a client writing JSON by hand need not
// hunt for a missing brace, or two messages on one socket line.
func parseError(body []byte) *jsonrpc.Error {
	switch {
	case len(bytes.TrimSpace(body)) == 0:
		return jsonrpc.Protocol(jsonrpc.CodeParseError, "parse error: the message is empty")
	case bytes.HasPrefix(body, []byte("\uFEFF")):
		return jsonrpc.Protocol(jsonrpc.CodeParseError, "parse error: the message starts with a byte order mark (U+FEFF), which JSON text must not (RFC 8259 §8.1)")
	}
	if msg, offset := wire.JSONSyntax(body); msg != "" {
		e := jsonrpc.Protocol(jsonrpc.CodeParseError, "parse error: the message is not valid JSON: %s", msg)
		if offset > 0 {
			e.Data.Details = map[string]any{"offset": offset}
		}
		return e
	}
	return jsonrpc.Protocol(jsonrpc.CodeParseError, "parse error: the message is not valid JSON")
}

// clearID is the id of the request object raw (decoded: m) when it is not
// in doubt: given once, in its case, valid, and not in a response; else
// nil.
func clearID(raw json.RawMessage, m map[string]json.RawMessage) json.RawMessage {
	id, ok := m["id"]
	if !ok || !validID(id) || isResponse(m) || jsonmember.Problem(bytes.TrimSpace(raw), []string{"id"}, "field") != "" {
		return nil
	}
	return id
}

// isObject reports whether the batch member raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	b := bytes.TrimLeft(raw, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// requestID is the id of a batch member that is a request (not a
// notification) and that handleOne would answer with it; ok is false for
// a notification. A member that is not an object, or whose id is not
// valid, is answered with id null, as handleOne would.
func requestID(raw json.RawMessage) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, true
	}
	if _, has := m["id"]; !has {
		return nil, false
	}
	return clearID(raw, m), true
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(errorResponse(nil, jsonrpc.Errorf(abi.Internal, "encoding the response: %v", err)))
	}
	return b
}

func errorResponse(id json.RawMessage, e *jsonrpc.Error) *jsonrpc.Response {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return &jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: id, Error: e}
}

// validID reports whether raw is a string, a number or null.
func validID(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return false
	}
	switch b[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// isResponse reports whether a message is a JSON-RPC response (it has
// "result" or "error" and no "method"). Its id is one the sender gave a
// request of its own: answering with it could be taken for the answer to
// the sender's request of that id, so a response is refused with id null.
func isResponse(m map[string]json.RawMessage) bool {
	return !hasMember(m, "method") && responseMember(m) != ""
}

func responseMember(m map[string]json.RawMessage) string {
	for _, k := range []string{"result", "error"} {
		if hasMember(m, k) {
			return k
		}
	}
	return ""
}

// requestMembers are the members of a request object.
var requestMembers = []string{"jsonrpc", "id", "method", "params"}

// given says what a request member held, for an invalid request's
// message: "it is missing", `got "1.0"`, "got the number 7", "got true";
// a long value is cut.
func given(raw json.RawMessage, present bool) string {
	b := bytes.TrimSpace(raw)
	if !present {
		return "it is missing"
	}
	q := string(b[:min(len(b), 4*41)]) // (40 runes and a bit: a params string may be megabytes)
	if r := []rune(q); len(r) > 40 {
		q = string(r[:40]) + "…"
	}
	if len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9') {
		return "got the number " + q
	}
	return "got " + q
}

func hasMember(m map[string]json.RawMessage, k string) bool {
	_, ok := m[k]
	return ok
}

// handleOne processes one request object.
func (s *Server) handleOne(ctx context.Context, sess *session, raw json.RawMessage) *jsonrpc.Response {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return errorResponse(nil, jsonrpc.Protocol(jsonrpc.CodeInvalidRequest, "invalid request: not a JSON object"))
	}
	return s.handleDecoded(ctx, sess, raw, m)
}

// handleDecoded is handleOne of raw decoded as m (a batch's member,
// decoded once for its id).
func (s *Server) handleDecoded(ctx context.Context, sess *session, raw json.RawMessage, m map[string]json.RawMessage) *jsonrpc.Response {
	// A member twice, or one of these in another case ("ID", taken for
	// none: the request would be a notification, answered by nothing),
	// leaves what the client meant unknown.
	if msg := jsonmember.Problem(bytes.TrimSpace(raw), requestMembers, "field"); msg != "" {
		// Answered with its id when that is not in doubt (given once,
		// in its case, in a request): a "pArAms" or "method" given twice
		// was answered with id null, which the client could match to
		// none of its requests (FuzzHandleMessage).
		return errorResponse(clearID(raw, m), jsonrpc.Protocol(jsonrpc.CodeInvalidRequest, "invalid request: %s", msg))
	}
	if isResponse(m) {
		return errorResponse(nil, jsonrpc.Protocol(jsonrpc.CodeInvalidRequest, `invalid request: this is a response (it has %q and no "method"); the server sends no requests, so it takes no responses`, responseMember(m)))
	}
	id, hasID := m["id"]
	if hasID && !validID(id) {
		return errorResponse(nil, jsonrpc.Protocol(jsonrpc.CodeInvalidRequest, "invalid request: id must be a string, a number or null (%s)", given(id, true)))
	}
	var version string
	if err := json.Unmarshal(m["jsonrpc"], &version); err != nil || version != jsonrpc.Version {
		return errorResponse(id, jsonrpc.Protocol(jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0" (%s)`, given(m["jsonrpc"], hasMember(m, "jsonrpc"))))
	}
	var method string
	if err := json.Unmarshal(m["method"], &method); err != nil || method == "" {
		return errorResponse(id, jsonrpc.Protocol(jsonrpc.CodeInvalidRequest, "invalid request: method must be a non-empty string (%s)", given(m["method"], hasMember(m, "method"))))
	}
	params := m["params"]
	if p := bytes.TrimSpace(params); len(p) > 0 && p[0] != '{' && p[0] != '[' {
		return errorResponse(id, jsonrpc.Protocol(jsonrpc.CodeInvalidRequest, "invalid request: params must be an object or an array (%s)", given(params, true)))
	}
	if p := bytes.TrimSpace(params); len(p) > 0 && p[0] == '[' && len(bytes.TrimSpace(p[1:len(p)-1])) == 0 {
		params = nil // "params": [] passes no parameter (client libraries send it for none)
	}
	s.metrics.rpc(sess.transport, method)
	if tracked, _ := ctx.Value(trackedKey{}).(bool); hasID && sess.inflight != nil && method != CancelMethod && !tracked {
		var done func()
		ctx, done = sess.inflight.track(ctx, id)
		defer done()
	}
	keyed(ctx)
	result, rerr := s.dispatch(ctx, sess, method, params)
	if !hasID {
		return nil
	}
	if rerr != nil {
		return errorResponse(id, rerr)
	}
	b, err := json.Marshal(result)
	if err != nil {
		return errorResponse(id, jsonrpc.Errorf(abi.Internal, "encoding the result of %s: %v", method, err))
	}
	return &jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: id, Result: b}
}

func (s *Server) dispatch(ctx context.Context, sess *session, method string, params json.RawMessage) (any, *jsonrpc.Error) {
	if a, ok := s.hcfg.Agents[sess.agent]; ok && !a.MethodAllowed(method) && slices.Contains(config.RPCMethods, method) {
		rerr := jsonrpc.Errorf(abi.CapabilityDenied, "agent %q may not use %s: it is not in agents.%s.methods", sess.agent, method, sess.agent)
		if method == "tools/call" {
			s.recordRefusedCall(ctx, sess, params, &abi.ToolError{Code: abi.CapabilityDenied, Message: rerr.Message})
		}
		return nil, rerr
	}
	switch method {
	case "tools/list":
		return s.toolsList(sess, params)
	case "tools/call":
		return s.toolsCall(ctx, sess, params)
	case "aios/registry.search":
		return s.registrySearch(params)
	case "aios/registry.info":
		return s.registryInfo(sess, params)
	case "aios/registry.refresh":
		return s.registryRefresh(ctx, sess, params)
	case "aios/registry.diff":
		return s.registryDiff(params)
	case "aios/registry.subscribe":
		return s.subscribe(ctx, sess, params)
	case "aios/registry.unsubscribe":
		return s.unsubscribe(sess, params)
	case "initialize":
		return s.initialize(params)
	case CancelMethod:
		return s.cancelRequest(sess, params)
	}
	return nil, jsonrpc.Protocol(jsonrpc.CodeMethodNotFound, "method %s not found (known: %s)", echo(method), strings.Join(config.RPCMethods, ", "))
}

// decodeParams decodes by-name params strictly into dst.
func decodeParams(params json.RawMessage, dst any) *jsonrpc.Error {
	p := bytes.TrimSpace(params)
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		return nil
	}
	if p[0] != '{' {
		return jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: pass params by name (a JSON object)")
	}
	in := p
	for pass := 0; ; pass++ { // each pass mends one integral float (below)
		dec := json.NewDecoder(bytes.NewReader(in))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		err := dec.Decode(dst)
		if err == nil {
			break
		}
		var mended []byte
		var msg string
		if pass < 64 {
			mended, msg = mendIntegral(in, err)
		}
		if msg != "" {
			return jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: %s", msg)
		}
		if mended == nil {
			return jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: %s%s", paramsError(err), unknownMemberHint(err, dst))
		}
		in = mended
	}
	if msg := jsonmember.Problem(p, paramNames(dst), "field"); msg != "" {
		return jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: %s", msg)
	}
	return nil
}

// mendIntegral answers a decoding error that is a number given for an
// integer member: JSON Schema (and package schema) count an integral
// number as an integer, so 10.0 or 1e2 (what a client serialising a float
// sends) stands for 10 or 100. It returns params with that member written
// as the integer, to decode again; or msg when the number is not whole
// (10.5) or too large to be exact (from 2^53 on); or neither when err is
// another error, or the member cannot be found by the error's path (in an
// array).
func mendIntegral(params []byte, err error) (mended []byte, msg string) {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil || !strings.HasPrefix(te.Value, "number") || te.Field == "" {
		return nil, ""
	}
	switch te.Type.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		return nil, ""
	}
	var bad string // the first number that is not a whole one, or too large
	changed := false
	whole := func(raw json.RawMessage) (json.RawMessage, bool) {
		t := bytes.TrimSpace(raw)
		if len(t) == 0 || t[0] != '-' && (t[0] < '0' || t[0] > '9') || !bytes.ContainsAny(t, ".eE") {
			return raw, true // not a number, or an integer literal already
		}
		f, perr := strconv.ParseFloat(string(t), 64)
		if perr != nil || math.Abs(f) >= 1<<53 || f != math.Trunc(f) {
			if bad == "" {
				bad = string(t)
			}
			return nil, false
		}
		changed = true
		return strconv.AppendInt(nil, int64(f), 10), true
	}
	// The error's path stops at an array or a map of integers ("ids" for
	// []int): their items are mended alike.
	mended = setMember(params, strings.Split(te.Field, "."), func(old json.RawMessage) json.RawMessage {
		t := bytes.TrimSpace(old)
		var out any
		switch {
		case len(t) > 0 && t[0] == '[':
			var a []json.RawMessage
			if json.Unmarshal(t, &a) != nil {
				return nil
			}
			for i := range a {
				var ok bool
				if a[i], ok = whole(a[i]); !ok {
					return nil
				}
			}
			out = a
		case len(t) > 0 && t[0] == '{':
			var m map[string]json.RawMessage
			if json.Unmarshal(t, &m) != nil {
				return nil
			}
			for k, v := range m {
				var ok bool
				if m[k], ok = whole(v); !ok {
					return nil
				}
			}
			out = m
		default:
			r, ok := whole(t)
			if !ok || !changed {
				return nil
			}
			return r
		}
		if !changed {
			return nil
		}
		return marshalRaw(out)
	})
	if mended != nil {
		return mended, ""
	}
	if bad == "" {
		// An integer literal beyond the type's range, which encoding/json
		// calls a "number": "depth: want integer, got number" of
		// 9223372036854775808 named neither the value nor what is wrong.
		if lit, ok := strings.CutPrefix(te.Value, "number "); ok && lit != "" && !strings.ContainsAny(lit, ".eE") {
			return nil, fmt.Sprintf("%s: want integer, got %s, %s", te.Field, cutNumber(lit), outOfRange(te.Type))
		}
		return nil, ""
	}
	f, perr := strconv.ParseFloat(bad, 64)
	switch {
	case perr == nil && f != math.Trunc(f):
		return nil, fmt.Sprintf("%s: want integer, got %s, which is not a whole number", te.Field, cutNumber(bad))
	case perr != nil || !fitsInt(f, te.Type):
		return nil, fmt.Sprintf("%s: want integer, got %s, %s", te.Field, cutNumber(bad), outOfRange(te.Type))
	}
	return nil, fmt.Sprintf("%s: want integer, got %s, which from 2^53 on may not be exact written with a fraction or exponent: write it as an integer literal", te.Field, cutNumber(bad))
}

// maxEcho bounds the bytes of a request's value quoted in an error
// message: a method, a member name or an id may be megabytes, and the
// messages quoted them whole (a capability of 2 MiB of U+00AD was answered
// with 22 MB: %q and the JSON escape each quote it again).
const maxEcho = 200

// echo is s quoted for a message, cut after maxEcho bytes.
func echo(s string) string {
	if len(s) <= maxEcho {
		return strconv.Quote(s)
	}
	return strconv.Quote(strings.ToValidUTF8(s[:maxEcho], "")) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// cutEcho is s, a value of the request, cut after maxEcho bytes (for an
// error's data).
func cutEcho(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	return strings.ToValidUTF8(s[:maxEcho], "") + "…"
}

// cutNumber is a number's text for a message, cut after 40 characters (a
// number may be megabytes of digits).
func cutNumber(n string) string {
	if len(n) > 40 {
		return n[:40] + "… (" + strconv.Itoa(len(n)) + " characters)"
	}
	return n
}

// fitsInt reports whether the whole number f is in the range of the
// integer type t.
func fitsInt(f float64, t reflect.Type) bool {
	bits := t.Bits()
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return f >= 0 && f < math.Ldexp(1, bits)
	}
	return f >= -math.Ldexp(1, bits-1) && f < math.Ldexp(1, bits-1)
}

// outOfRange says the range of the integer type t, for a value beyond it.
func outOfRange(t reflect.Type) string {
	bits := t.Bits()
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("which is out of range (from 0 to %d)", uint64(math.MaxUint64)>>(64-bits))
	}
	hi := uint64(1)<<(bits-1) - 1
	return fmt.Sprintf("which is out of range (from %d to %d)", -int64(hi)-1, hi)
}

// marshalRaw encodes v without escaping <, > and & (the text of the
// members it holds stays as sent); nil if it cannot.
func marshalRaw(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return bytes.TrimSpace(b.Bytes())
}

// setMember rewrites the member at path in the JSON object obj by fn (given
// the member's value, nil to give up), keeping the other members' text;
// nil when the path leads nowhere or fn gives up.
func setMember(obj []byte, path []string, fn func(json.RawMessage) json.RawMessage) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil || m == nil {
		return nil
	}
	v, ok := m[path[0]]
	if !ok {
		return nil
	}
	if len(path) == 1 {
		v = fn(v)
	} else {
		v = setMember(v, path[1:], fn)
	}
	if v == nil {
		return nil
	}
	m[path[0]] = v
	return marshalRaw(m)
}

// paramNamesOf caches paramNames by type (reflect.Type → []string).
var paramNamesOf sync.Map

// paramNames are the member names of the struct dst points to.
func paramNames(dst any) []string {
	t := reflect.TypeOf(dst)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	if v, ok := paramNamesOf.Load(t); ok {
		return v.([]string)
	}
	names := structNames(t)
	paramNamesOf.Store(t, names)
	return names
}

func structNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		names = append(names, tag)
	}
	return names
}

// memberAliases are other specs' names of members the methods take: seed
// 000 §10.2's ToolCallRequest { tool_name, params } and abi.ToolCall's
// tool are tools/call's name and arguments. A member so named, and near no
// member by spelling, is answered with the member it stands for.
var memberAliases = map[string]string{"tool_name": "name", "tool": "name", "params": "arguments"}

// unknownMemberHint follows `unknown field "argument"` with the closest
// member the method takes and the list of them: a misspelt member (tools/call's
// "argument", search's "querry") was refused without saying what was meant.
func unknownMemberHint(err error, dst any) string {
	name, ok := strings.CutPrefix(err.Error(), "json: unknown field ")
	if !ok {
		return ""
	}
	name = strings.Trim(name, `"`)
	known := paramNames(dst)
	if len(known) == 0 {
		return ""
	}
	best := editdist.Closest(name, known, 2)
	if a, ok := memberAliases[name]; ok && best == "" && slices.Contains(known, a) {
		best = a
	}
	hint := " (known: " + strings.Join(known, ", ") + ")"
	if best != "" {
		hint = " (did you mean " + strconv.Quote(best) + "?; known: " + strings.Join(known, ", ") + ")"
	}
	return hint
}

// paramsError says a params decoding error in JSON's terms: the member's
// path and the JSON types for a type error ("limit: want integer, got
// string"), not Go's struct and field names; "json: " is cut from others.
func paramsError(err error) string {
	field, want, got, ok := abi.JSONTypeMismatch(err)
	// stringList's element index: "capabilities.1" is capabilities[1].
	if head, idx, cut := strings.Cut(field, "."+elemMark); cut {
		field = head + "[" + idx + "]"
	}
	switch {
	case !ok:
		msg := strings.TrimPrefix(err.Error(), "json: ")
		if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
			if n, uerr := strconv.Unquote(name); uerr == nil {
				return "unknown field " + echo(n) // (a member name may be megabytes)
			}
		}
		return msg
	case field == "":
		return "want " + want + ", got " + got
	}
	return field + ": want " + want + ", got " + got
}

// trackedKey marks the context of a request handleMessage keyed for
// notifications/cancelled already (one that may wait for
// limits.max_decode_bytes), which handleOne does not key again.
type trackedKey struct{}

// keyedKey finds in a socket message's context the function that tells
// its connection the request is keyed for notifications/cancelled (or
// needs not be), so that it reads on: a cancel read before would find
// nothing of that id.
type keyedKey struct{}

// keyed tells ctx's connection, if it waits, that the request is keyed.
func keyed(ctx context.Context) {
	if f, ok := ctx.Value(keyedKey{}).(func()); ok {
		f()
	}
}

// answerGateKey finds a message's answer gate in its context.
type answerGateKey struct{}

// answerGate is the context of one socket message: it tells a request of
// that message (aios/registry.subscribe) when the message's answer (its
// batch's, for a batch) has been written. One allocation a message; the
// channel is made only when someone waits.
type answerGate struct {
	context.Context
	mu       sync.Mutex
	answered bool
	ch       chan struct{}
}

func (g *answerGate) Value(key any) any {
	if key == (answerGateKey{}) {
		return g
	}
	return g.Context.Value(key)
}

// open says the answer is written (or that there is none).
func (g *answerGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.answered = true
	if g.ch != nil {
		close(g.ch)
	}
}

// answerWritten is closed once the answer to ctx's message is written; a
// closed channel when the transport does not say (nothing to wait for).
func answerWritten(ctx context.Context) <-chan struct{} {
	g, ok := ctx.Value(answerGateKey{}).(*answerGate)
	if !ok {
		return closedChan
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.answered {
		return closedChan
	}
	if g.ch == nil {
		g.ch = make(chan struct{})
	}
	return g.ch
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// testHookBeforeAnswer, when set by a test, runs before a socket answer is
// written (to widen the window between a request's handling and its answer).
var testHookBeforeAnswer func()

// recordRefusedCall gives a tools/call that the server refused by a limit
// of its own (agents.NAME.methods, a socket connection's slots) its audit
// record (and its call observers' stats), as a front end's refusal is
// recorded (host.Host.Refuse): the attempt of an agent kept from calling
// tools is in the log with the agent and its principal. The answer stays
// the server's refusal whatever the record says (an unknown tool is
// NotFound there, not to the client).
func (s *Server) recordRefusedCall(ctx context.Context, sess *session, params json.RawMessage, why *abi.ToolError) {
	var p jsonrpc.ToolsCallParams
	if json.Unmarshal(params, &p) != nil || p.Name == "" {
		return // nothing that names a call
	}
	args, err := abi.Normalize(p.Arguments)
	if err != nil {
		args = nil
	}
	s.refuseCall(ctx, sess, p, args, why)
}

// recordUndecodedCall records the tools/call of body, if it is one,
// refused before it was decoded (for what it would decode to): as
// recordRefusedCall, but its arguments are left out, not decoded.
func (s *Server) recordUndecodedCall(ctx context.Context, sess *session, body []byte, why error) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name     string `json:"name"`
			Version  string `json:"version"`
			ParentID string `json:"parent_id"`
			Depth    int    `json:"depth"`
		} `json:"params"`
	}
	if sess == nil || jsonrpc.IsBatch(body) || json.Unmarshal(body, &m) != nil || m.Method != "tools/call" || m.Params.Name == "" {
		return
	}
	s.refuseCall(ctx, sess, jsonrpc.ToolsCallParams{Name: m.Params.Name, Version: m.Params.Version, ParentID: m.Params.ParentID, Depth: m.Params.Depth},
		nil, abi.AsToolError(why, abi.Unavailable))
}

// refuseCall records the call p (arguments args) refused for why.
func (s *Server) refuseCall(ctx context.Context, sess *session, p jsonrpc.ToolsCallParams, args any, why *abi.ToolError) {
	call := &abi.ToolCall{Caller: sess.agent, Tool: p.Name, Version: p.Version, Params: args, Depth: max(p.Depth, 0)}
	if p.ParentID != "" {
		call.ParentID = ClientParentPrefix + p.ParentID
	}
	_, _ = s.h.Refuse(host.WithOrigin(ctx, sess.origin), call, why)
}

// stringList is a params member holding a list of strings. A null in it
// is refused at its index as a number there is: decoded as []string it
// was "" and refused as the empty string, which the client never sent
// ("capabilities[0] \"\" is neither a card feature …").
type stringList []string

// elemMark starts the Field of stringList's type errors, after which
// paramsError finds the element's index.
const elemMark = "\x00"

func (l *stringList) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			return &json.UnmarshalTypeError{Value: te.Value, Type: reflect.TypeFor[[]string](), Offset: te.Offset}
		}
		return err
	}
	if raw == nil {
		*l = nil
		return nil
	}
	out := make([]string, len(raw))
	for i, r := range raw {
		if string(r) == "null" {
			return &json.UnmarshalTypeError{Value: "null", Type: reflect.TypeFor[string](), Field: elemMark + strconv.Itoa(i)}
		}
		if err := json.Unmarshal(r, &out[i]); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return &json.UnmarshalTypeError{Value: te.Value, Type: te.Type, Field: elemMark + strconv.Itoa(i)}
			}
			return err
		}
	}
	*l = out
	return nil
}
