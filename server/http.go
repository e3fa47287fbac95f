package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/authlimit"
	"github.com/aios-host/aios-host/internal/origin"
	"github.com/aios-host/aios-host/internal/wire"
	"github.com/aios-host/aios-host/registry"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

// HTTP endpoints
//
//	POST /rpc                          JSON-RPC 2.0 (one request or a batch), Authorization: Bearer <token>
//	GET  /events                       Server-Sent Events: each tools_changed notification (with an id) as
//	                                   "event: aios/notification.tools_changed" + "data: <JSON-RPC notification>";
//	                                   ?events=added,removed filters; same bearer token as /rpc
//	GET  /.well-known/aios-adapter.json  the host's own Adapter Card (signed when server.signing_key is set)
//	GET  /.well-known/jwks.json        the public key that signs that card
//	GET  /health                       {"status":"ok", ...}
//	GET  /metrics                      Prometheus text format (server.metrics_auth: a bearer token unless from the local user, notLocal)
//
// /rpc answers HTTP 200 with the JSON-RPC response (errors included), 204
// for notifications only, 401 without a valid token, 413 for a body over
// server.max_body_bytes, 415 for a non-JSON content type. A path the
// server does not serve is 404, a method an endpoint does not take (GET
// /rpc) 405 with Allow; all of these carry a JSON-RPC error object.

// maxEventStreamsPerAgent bounds the GET /events streams one agent holds
// at once: each is a registry subscriber, a goroutine and an open
// connection.
const maxEventStreamsPerAgent = 64

// Handler returns the HTTP handler with every endpoint.
func (s *Server) Handler() http.Handler {
	if s.h == nil {
		// A zero Server (not made with New): its endpoints would
		// dereference its nil parts.
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, errUnmade.Error(), http.StatusInternalServerError)
		})
	}
	mux := &routes{mux: http.NewServeMux()}
	mux.Handle("POST /rpc", http.HandlerFunc(s.serveRPC))
	mux.Handle("GET /events", http.HandlerFunc(s.serveEvents))
	mux.Handle("GET /.well-known/aios-adapter.json", s.bounded(http.HandlerFunc(s.serveCard)))
	mux.Handle("GET /.well-known/jwks.json", s.bounded(http.HandlerFunc(s.serveJWKS)))
	mux.Handle("GET /health", s.bounded(http.HandlerFunc(s.serveHealth)))
	mux.Handle("GET /metrics", s.bounded(s.metricsGate(s.metrics.Handler())))
	if s.mount != nil {
		s.mount(mux) // Options.Mount: /mcp and its OAuth metadata (mcpserver)
	}
	served := strings.Join(mux.patterns, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.mux.Handler(r); pattern == "" {
			w = &statusJSONWriter{ResponseWriter: w, r: r, served: served}
		}
		mux.mux.ServeHTTP(w, r)
	})
}

// Mux is where Options.Mount registers its endpoints (an *http.ServeMux
// satisfies it).
type Mux = interface {
	Handle(pattern string, handler http.Handler)
}

// routes is Handler's mux, keeping the patterns registered (the server's
// own and Options.Mount's) for a 404's message.
type routes struct {
	mux      *http.ServeMux
	patterns []string
}

func (r *routes) Handle(pattern string, handler http.Handler) {
	r.mux.Handle(pattern, handler)
	r.patterns = append(r.patterns, pattern)
}

// statusJSONWriter turns the mux's own text/plain answers, 404 for a path
// it does not serve and 405 for a method it does not take there (GET
// /rpc), into JSON-RPC error objects as the server's other answers are;
// the status and the Allow header stay. Other answers (redirects) pass.
type statusJSONWriter struct {
	http.ResponseWriter
	r      *http.Request
	served string // the endpoints served, for a 404
	done   bool
}

func (w *statusJSONWriter) WriteHeader(code int) {
	var e *jsonrpc.Error
	switch code {
	case http.StatusNotFound:
		e = jsonrpc.Errorf(abi.NotFound, "%s %s: not found: this server serves %s", w.r.Method, cutEcho(w.r.URL.Path), w.served)
	case http.StatusMethodNotAllowed:
		e = jsonrpc.Errorf(abi.InvalidRequest, "%s %s: method not allowed (allowed: %s)", w.r.Method, cutEcho(w.r.URL.Path), w.Header().Get("Allow"))
	default:
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.done = true
	w.Header().Del("X-Content-Type-Options")
	writeJSON(w.ResponseWriter, code, mustMarshal(errorResponse(nil, e)))
}

func (w *statusJSONWriter) Write(p []byte) (int, error) {
	if w.done {
		return len(p), nil // (the mux's text, replaced)
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusJSONWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// answerDeadline bounds writing the answer to w by server.write_timeout
// from now. The HTTP server has no WriteTimeout (GET /events and the /mcp
// streams are long-lived, and a call may run for minutes), so without it a
// client that stops reading would hold the handler (its goroutine, its
// answer, its token's request slot) for ever. The deadline stays set after
// the handler returns, so the server's final flush of the answer is
// bounded too; net/http clears it once the answer is written, before the
// connection's next request.
func (s *Server) answerDeadline(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
}

// bounded runs next with its answer bounded by answerDeadline, renewed as
// the answer makes progress (progressWriter).
func (s *Server) bounded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.answerDeadline(w)
		next.ServeHTTP(&progressWriter{ResponseWriter: w, timeout: s.cfg.WriteTimeout}, r)
	})
}

// progressWriter writes an answer under a write deadline of timeout
// renewed every wire.ProgressChunk: an answer is given up when it makes
// no progress for timeout, not when it takes longer than that in all (a
// large answer to a slow but steady reader).
type progressWriter struct {
	http.ResponseWriter
	timeout time.Duration
}

func (w *progressWriter) Write(p []byte) (n int, err error) {
	return wire.WriteProgress(w.ResponseWriter, http.NewResponseController(w.ResponseWriter).SetWriteDeadline, p, w.timeout)
}

func (w *progressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// metricsGate asks for a bearer token before /metrics as
// server.metrics_auth says: the metrics name every tool and provider,
// exported or not. The token's agent must be allowed config.MetricsMethod
// by its agents.NAME.methods.
func (s *Server) metricsGate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hint := ""
		if s.cfg.MetricsAuth == "loopback" {
			hint = notLocal(r)
		}
		if s.cfg.MetricsAuth == "token" || hint != "" {
			agent, _, ok := s.authenticateHint(w, r, hint)
			if !ok {
				return
			}
			if a, ok := s.hcfg.Agents[agent]; ok && !a.MethodAllowed(config.MetricsMethod) {
				writeJSON(w, http.StatusForbidden, mustMarshal(errorResponse(nil, jsonrpc.Errorf(abi.CapabilityDenied,
					"agent %q may not read GET /metrics: %q is not in agents.%s.methods", agent, config.MetricsMethod, agent))))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// notLocal says why a request is not the local user's for
// server.metrics_auth: loopback, "" when it is: its peer is on a loopback
// address, its Host names a loopback host (localhost, 127.0.0.1, [::1]),
// and it carries no header a proxy adds (Forwarded, X-Forwarded-For,
// X-Real-IP, X-Forwarded-Host, X-Forwarded-Proto, Via). A loopback peer
// alone is not enough: a web page that rebinds its own name to 127.0.0.1
// (DNS rebinding) connects from loopback, its browser sending the page's
// Host, and reads the answer as same-origin; a reverse proxy on the same
// machine connects from loopback for peers anywhere, and says so in those
// headers.
func notLocal(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return "the peer is not on a loopback address"
	}
	if !origin.LoopbackHost(r.Host) {
		return fmt.Sprintf("Host %q is not a loopback host (localhost, 127.0.0.1, [::1])", cutEcho(r.Host))
	}
	// (X-Real-IP alone is what many nginx set-ups send; -Host, -Proto
	// and Via are sent by proxies too: any of them is a proxied request.)
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Real-IP", "X-Forwarded-Host", "X-Forwarded-Proto", "Via"} {
		if r.Header.Get(h) != "" {
			return "the request came through a proxy (" + h + ")"
		}
	}
	return ""
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// authSchemes are the registered HTTP authentication schemes (IANA) a 401
// names when a client sends one of them instead of Bearer; another word
// before the header's space is not echoed, as it may be a secret.
var authSchemes = []string{"Basic", "Digest", "Negotiate", "NTLM", "OAuth", "HOBA", "Mutual",
	"SCRAM-SHA-1", "SCRAM-SHA-256", "vapid", "DPoP", "GNAP", "Concealed", "PrivateToken", "AWS4-HMAC-SHA256", "Token"}

// authenticate maps the request's bearer token to an agent and the
// token's name, or answers 401.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (agent, name string, ok bool) {
	return s.authenticateHint(w, r, "")
}

// authenticateHint is authenticate whose 401 for a missing token says why
// the request needs one (GET /metrics: why it is not the local user's).
func (s *Server) authenticateHint(w http.ResponseWriter, r *http.Request, hint string) (agent, name string, ok bool) {
	h := r.Header.Get("Authorization")
	key := authlimit.Key(r.RemoteAddr)
	if h != "" {
		// An address that sent too many invalid tokens is refused,
		// whatever it sends, until its window ends: guessing a token
		// gets 10 tries a minute.
		if left, blocked := s.badTokens.Blocked(key); blocked {
			secs := int(left/time.Second) + 1
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			writeJSON(w, http.StatusTooManyRequests, mustMarshal(errorResponse(nil, jsonrpc.Limited("", time.Duration(secs)*time.Second,
				"too many invalid bearer tokens from %s (%d within %v): retry in %d s", key, authlimit.DefaultFailures, authlimit.DefaultWindow, secs))))
			return "", "", false
		}
	}
	scheme, tok, ok := strings.Cut(h, " ")
	if ok && strings.EqualFold(scheme, "Bearer") { // the scheme is case-insensitive
		if agent, name, ok := s.agentForToken(strings.TrimSpace(tok)); ok {
			return agent, name, true
		}
	}
	if h != "" && s.badTokens.Fail(key) {
		s.log.Warn("HTTP client refused for a while: too many invalid bearer tokens", "remote", key,
			"failures", authlimit.DefaultFailures, "window", authlimit.DefaultWindow)
	}
	msg := "missing bearer token (Authorization: Bearer <token>, see server.tokens)"
	if h == "" {
		// A token in the URL (RFC 6750 §2.3's access_token) is not read:
		// proxies and servers log URLs. It was answered "missing", as if
		// the client had sent none, leaving it to guess why.
		if name := queryTokenName(r.URL.RawQuery); name != "" {
			msg = fmt.Sprintf("missing bearer token: the token in the query string (%s=) is not read, as URLs are logged; send it in the header, Authorization: Bearer <token> (see server.tokens)", name)
		}
	}
	if hint != "" {
		msg += "; server.metrics_auth: loopback asks one of this request: " + hint
	}
	if h != "" {
		msg = "invalid bearer token"
		switch {
		case strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(tok) == "":
			msg = `no token after Bearer in the Authorization header: send "Authorization: Bearer <token>" (see server.tokens)`
		case !ok || !strings.EqualFold(scheme, "Bearer"):
			msg = `the Authorization header is not "Bearer <token>" (see server.tokens)`
			if i := slices.IndexFunc(authSchemes, func(s string) bool { return strings.EqualFold(s, scheme) }); ok && i >= 0 {
				msg = fmt.Sprintf(`Authorization scheme %q is not Bearer: send "Authorization: Bearer <token>" (see server.tokens)`, authSchemes[i])
			}
		}
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="aios-host"`)
	writeJSON(w, http.StatusUnauthorized, mustMarshal(errorResponse(nil, jsonrpc.Errorf(abi.CapabilityDenied, "%s", msg))))
	return "", "", false
}

// queryTokenNames are the query parameters clients put a bearer token in
// (access_token: RFC 6750 §2.3).
var queryTokenNames = []string{"access_token", "token", "bearer_token", "auth_token"}

// queryTokenName is the query parameter of rawQuery that looks like a
// bearer token's, in its case, or "".
func queryTokenName(rawQuery string) string {
	if rawQuery == "" {
		return ""
	}
	q, _ := url.ParseQuery(rawQuery) // (what parses: a hint only)
	for k := range q {
		if slices.ContainsFunc(queryTokenNames, func(n string) bool { return strings.EqualFold(n, k) }) {
			return cutEcho(k)
		}
	}
	return ""
}

func (s *Server) serveRPC(w http.ResponseWriter, r *http.Request) {
	s.answerDeadline(w) // (the refusals below; the answer sets its own)
	agent, name, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	// One token runs at most max_requests_per_token requests at once,
	// counted before its body is read: each holds a goroutine, its body
	// and its calls (rate limits bound how fast calls start, not how many
	// slow ones stay open).
	s.mu.Lock()
	n := s.tokenReqs[name]
	if n < s.cfg.MaxRequestsPerToken {
		s.tokenReqs[name] = n + 1
	}
	s.mu.Unlock()
	if n >= s.cfg.MaxRequestsPerToken {
		writeJSON(w, http.StatusTooManyRequests, mustMarshal(errorResponse(nil, jsonrpc.Limited("server.max_requests_per_token", 0,
			"token %s (agent %s) already runs %d requests, the limit (server.max_requests_per_token): wait for one to end", name, agent, n))))
		return
	}
	defer func() {
		s.mu.Lock()
		if s.tokenReqs[name]--; s.tokenReqs[name] <= 0 {
			delete(s.tokenReqs, name)
		}
		s.mu.Unlock()
	}()
	ct := r.Header.Get("Content-Type")
	if ct != "" && !jsonMediaType(ct) {
		writeJSON(w, http.StatusUnsupportedMediaType, mustMarshal(errorResponse(nil,
			jsonrpc.Protocol(jsonrpc.CodeInvalidRequest, "invalid request: Content-Type %q; send application/json", ct))))
		return
	}
	// A compressed body would be read as JSON and answered "parse error",
	// blaming what the client sent; no content coding but identity is
	// decoded (RFC 9110 §15.5.16: 415 for a content coding not accepted).
	if ce := r.Header.Values("Content-Encoding"); len(ce) > 0 && !identityEncoding(ce) {
		w.Header().Set("Accept-Encoding", "identity")
		writeJSON(w, http.StatusUnsupportedMediaType, mustMarshal(errorResponse(nil,
			jsonrpc.Protocol(jsonrpc.CodeInvalidRequest, "invalid request: Content-Encoding %q is not supported; send the body uncompressed", strings.Join(ce, ", ")))))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeJSON(w, http.StatusRequestEntityTooLarge, mustMarshal(errorResponse(nil,
				jsonrpc.Errorf(abi.TooLarge, "invalid request: body larger than %d bytes (server.max_body_bytes)", s.cfg.MaxBodyBytes))))
			return
		}
		msg := fmt.Sprintf("reading the request body: %v", err)
		if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
			// (the error named the sockets' addresses, not the limit)
			msg = fmt.Sprintf("the request was not received within %s (server.read_timeout, from its first byte); send the body at once, or raise server.read_timeout", s.cfg.ReadTimeout)
		}
		writeJSON(w, http.StatusRequestTimeout, mustMarshal(errorResponse(nil, jsonrpc.Errorf(abi.Timeout, "%s", msg))))
		return
	}
	if cs := mediaCharset(ct); cs != "" && !strings.EqualFold(cs, "utf-8") && !(utf8.Valid(body) && json.Valid(body)) {
		// JSON text is UTF-8 (RFC 8259 §8.1): a body in another charset
		// would be answered "parse error", blaming its JSON. A charset
		// label has no effect otherwise (RFC 8259 §11): charset=utf8, and
		// the ASCII body of a client that labels every body ISO-8859-1,
		// are UTF-8 JSON.
		writeJSON(w, http.StatusUnsupportedMediaType, mustMarshal(errorResponse(nil,
			jsonrpc.Protocol(jsonrpc.CodeInvalidRequest, "invalid request: Content-Type %q: JSON is UTF-8; send the body in UTF-8 (charset=utf-8, or no charset)", ct))))
		return
	}
	// A call's timeout_ms counts from here, not from when the call
	// starts: a large message may wait for limits.max_decode_bytes first
	// (up to 10 s), and ran with its whole timeout after (found by p163;
	// the socket counts from the read: readAtKey).
	ctx := context.WithValue(r.Context(), readAtKey{}, time.Now())
	out := s.handleMessage(ctx, &session{agent: agent, transport: "http", origin: host.Origin{Principal: "token:" + name, Remote: r.RemoteAddr}}, body)
	s.answerDeadline(w) // from when the answer is ready: the call may have run for minutes
	if out == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(&progressWriter{ResponseWriter: w, timeout: s.cfg.WriteTimeout}, http.StatusOK, out)
}

// identityEncoding says whether Content-Encoding values name no coding
// but identity.
func identityEncoding(values []string) bool {
	for _, v := range values {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				return false
			}
		}
	}
	return true
}

// mediaCharset is the charset parameter of a Content-Type ("" when none).
func mediaCharset(ct string) string {
	_, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return params["charset"]
}

// jsonMediaType says whether a Content-Type names JSON: application/json,
// or application/json-rpc or application/jsonrequest (the JSON-RPC over
// HTTP draft's), in any case (RFC 9110 §8.3.1), with any parameters.
func jsonMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || mt == "application/json-rpc" || mt == "application/jsonrequest")
}

func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	agent, _, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	// The stream is aios/registry.subscribe over HTTP: an agent whose
	// agents.NAME.methods leaves that out may not open it either.
	if a, ok := s.hcfg.Agents[agent]; ok && !a.MethodAllowed("aios/registry.subscribe") {
		writeJSON(w, http.StatusForbidden, mustMarshal(errorResponse(nil, jsonrpc.Errorf(abi.CapabilityDenied,
			"agent %q may not use aios/registry.subscribe (GET /events): it is not in agents.%s.methods", agent, agent))))
		return
	}
	// (URL.Query drops a pair it cannot parse without a word:
	// ?events=removed;added or ?event%ZZ=added streamed every event.)
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, mustMarshal(errorResponse(nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams,
			"invalid params: the query of GET /events does not parse (%v): write it as events=added,removed,updated", err))))
		return
	}
	for k := range query {
		if k != "events" {
			// A typo (?event=added) would stream every event.
			writeJSON(w, http.StatusBadRequest, mustMarshal(errorResponse(nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams,
				"invalid params: unknown query parameter %q of GET /events (it takes events=added,removed,updated)", k))))
			return
		}
	}
	// Every events= counts: a list may come as events=a,b or as
	// events=a&events=b (how HTTP libraries encode a list).
	var list []string
	for _, q := range query["events"] {
		if q != "" {
			list = append(list, strings.Split(q, ",")...)
		}
	}
	if query.Has("events") && len(list) == 0 {
		// ?events= (a list left empty: ?events=$EVENTS unset) streamed
		// every event, where subscribe's "events": [] is refused.
		writeJSON(w, http.StatusBadRequest, mustMarshal(errorResponse(nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams,
			"invalid params: events= of GET /events is empty; leave it out to stream every event, or name them (events=added,removed,updated)"))))
		return
	}
	want, rerr := parseEvents(list)
	if rerr != nil {
		writeJSON(w, http.StatusBadRequest, mustMarshal(errorResponse(nil, rerr)))
		return
	}
	s.mu.Lock()
	n := s.streams[agent]
	if n < maxEventStreamsPerAgent {
		s.streams[agent] = n + 1
	}
	s.mu.Unlock()
	if n >= maxEventStreamsPerAgent {
		writeJSON(w, http.StatusTooManyRequests, mustMarshal(errorResponse(nil, jsonrpc.Errorf(abi.TooLarge,
			"agent %s already holds %d event streams, the limit (close one; each receives every change)", agent, n))))
		return
	}
	defer func() {
		s.mu.Lock()
		if s.streams[agent]--; s.streams[agent] <= 0 {
			delete(s.streams, agent)
		}
		s.mu.Unlock()
	}()
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		// HEAD (which "GET /events" also serves) asks for the headers
		// alone: the stream's body is never sent, so streaming held the
		// connection, and one of the agent's streams, until the client
		// hung up, its next request on that connection unanswered.
		return
	}
	ch, cancel := s.h.Registry().Subscribe(64)
	defer cancel()
	s.metrics.subscribers.Inc()
	defer s.metrics.subscribers.Dec()
	// A comment line opens the stream so clients know they are subscribed;
	// its id (and each event's) is what an EventSource sends back as
	// Last-Event-ID when it reconnects by itself after a dropped
	// connection. Without one it reconnected unnoticed, and the changes
	// made while it was away were lost without a word.
	_, _ = io.WriteString(w, ": subscribed to "+NotificationToolsChanged+"\nid: 0\n\n")
	_ = rc.Flush()
	seq := 0
	send := func(tc *ToolsChanged) bool {
		seq++
		data, _ := json.Marshal(jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: NotificationToolsChanged, Params: tc})
		_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		if _, err := fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", seq, NotificationToolsChanged, data); err != nil {
			return false
		}
		_ = rc.Flush()
		return true
	}
	if r.Header.Get("Last-Event-ID") != "" {
		// A reconnect: the changes since the stream it lost are not
		// kept, so it is told to re-list, as a subscriber that fell
		// behind is (overflow).
		if !send(changeParams(registry.Event{Overflow: true}, want, "")) {
			return
		}
	}
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-keep.C:
			_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
			_ = rc.Flush()
		case ev, ok := <-ch:
			if !ok {
				return
			}
			tc := changeParams(ev, want, "")
			if tc == nil {
				continue
			}
			if !send(tc) {
				return
			}
		}
	}
}

func (s *Server) serveHealth(w http.ResponseWriter, _ *http.Request) {
	reg := s.h.Registry()
	h := map[string]any{"status": "ok", "providers": len(reg.Providers()), "tools": len(reg.Tools()),
		"protocol_version": "0.3.0", "version": Version}
	code := http.StatusOK
	if err := s.h.AuditFailing(); err != nil {
		// Calls are refused while the audit log cannot be written.
		h["status"], h["audit_error"] = "degraded", auditProblem(err)
		code = http.StatusServiceUnavailable
	}
	body, _ := json.Marshal(h)
	writeJSON(w, code, body)
}

// auditProblem says why the audit log cannot be written, for /health,
// which needs no token: the cause (no space left on device) without the
// log's path, a path on this host (the host's log has it).
func auditProblem(err error) string {
	cause := ""
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Op + ": " + pe.Err.Error()
	} else if inner := innermost(err); inner != err {
		cause = inner.Error()
	}
	if cause == "" {
		return "the audit log cannot be written (see the host's log); calls are refused until it can be"
	}
	return "the audit log cannot be written (" + cause + "); calls are refused until it can be"
}

// innermost is the last error of err's Unwrap chain.
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
