package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/redact"
	"github.com/aios-host/aios-host/internal/screen"
)

// table is one published tool set of a server: the registration and, per
// aios tool name, what it calls. Tables are immutable once stored.
type table struct {
	reg       *abi.ToolRegister
	targets   map[string]target
	published bool
}

// target is the MCP side of one aios tool: a tool name, a resource URI,
// or a resource template.
type target struct {
	tool       string
	uri        string
	tmpl       *uritemplate.Template
	prompt     string // prompts/get of this prompt
	structured bool   // the tool declares an outputSchema: return structuredContent
}

func (t *table) add(def abi.ToolDef, tg target) bool {
	if _, dup := t.targets[def.Name]; dup {
		return false
	}
	t.targets[def.Name] = tg
	t.reg.Tools = append(t.reg.Tools, def)
	return true
}

// provider is the abi.Provider of one MCP server. The same value is
// republished whenever the server's tool list changes.
type provider struct {
	srv   *server
	table atomic.Pointer[table]
}

var _ abi.Provider = (*provider)(nil)

func (p *provider) Describe() *abi.ToolRegister { return p.table.Load().reg }

// Close disconnects the server (the host closes a provider it removes).
func (p *provider) Close() error {
	p.srv.stop()
	return nil
}

// Call forwards one call as tools/call (or resources/read). A server that
// is not connected answers Unavailable at once; one that drops the
// connection during the call answers Unavailable too; the call's deadline
// bounds the wait for a hung server.
func (p *provider) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (res any, err error) {
	if call == nil {
		return nil, abi.NilCall(p)
	}
	// The calls in flight answer a server's sampling requests (when
	// cfg.Sampling) and take its log messages (serverlog.go).
	defer p.srv.calls.add(ctx, call, env)()
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, abi.Errorf(abi.ProviderCrashed, "mcp bridge: panic calling %s: %v", call.Tool, r)
		}
	}()
	s := p.srv
	defer func() {
		if err != nil {
			err = s.redactToken(err)
		}
	}()
	tg, ok := p.table.Load().targets[call.Tool]
	if !ok {
		return nil, abi.Errorf(abi.NotFound, "mcp server %s no longer offers %s", s.name, call.Tool)
	}
	// The call's deadline bounds the wait for a restarting server too:
	// a call given 1 s waited for a restart taking 3 s.
	caller := ctx
	var cancel context.CancelFunc
	if !call.Deadline.IsZero() {
		ctx, cancel = context.WithDeadline(ctx, call.Deadline)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	sess := s.session()
	if sess == nil {
		sess = s.awaitRestart(ctx)
	}
	if sess == nil && s.isStopped() {
		// Its provider was closed (removed or replaced) while this call
		// was being dispatched: no reconnect will come.
		return nil, abi.Errorf(abi.Unavailable, "mcp server %s (mcp.servers.%s) was stopped, so %s was not sent: %s", s.name, s.name, call.Tool, s.stopReason())
	}
	if sess == nil && ctx.Err() != nil {
		// Its deadline passed (its caller cancelled it) while the server
		// was being restarted: Timeout (Cancelled), as when the server
		// has not answered by then, not Unavailable.
		te := abi.AsToolError(ctx.Err(), abi.Timeout)
		why := "the call's deadline passed"
		if te.Code == abi.Cancelled {
			why = "its caller cancelled it"
		}
		return nil, &abi.ToolError{Code: te.Code, Message: fmt.Sprintf("mcp server %s (mcp.servers.%s) was being restarted and had not come back when %s (%v); %s was not sent",
			s.name, s.name, why, ctx.Err(), call.Tool)}
	}
	if sess == nil {
		msg := fmt.Sprintf("mcp server %s (mcp.servers.%s) is not connected, so %s was not sent; the bridge is reconnecting", s.name, s.name, call.Tool)
		if s.lastError() != nil {
			// Not the error itself: it may quote the server's command
			// line or address (as the NotFound of bridge.go).
			msg += " (the host log says why)"
		}
		s.kickFromCall()
		return nil, &abi.ToolError{Code: abi.Unavailable, Message: msg}
	}
	s.sentOn.Store(sess) // a session ending now is a restart (serve)
	ctx = withTokenWait(ctx)
	// Stopping the server (its provider closed: removed, replaced, the
	// host closing) ends the call: its answer can no longer come, and the
	// go-sdk's session Close waits for the calls in flight, so a stop held
	// the closing host until their deadlines.
	defer context.AfterFunc(s.ctx, cancel)()
	since := time.Now()
	uri := tg.uri
	if tg.tmpl != nil {
		params, _ := call.Params.(map[string]any) // the schema says it is an object
		u, err := expandTemplate(tg.tmpl, params)
		if err != nil {
			return nil, abi.Errorf(abi.InvalidParams, "mcp server %s: resource template %s: %v", s.name, tg.tmpl.Raw(), err)
		}
		uri = u
	}
	if uri != "" {
		r, err := sess.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: uri})
		if again := s.expired(ctx, sess, err); again != nil {
			sess = again
			r, err = sess.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: uri})
		}
		if err != nil {
			var we *jsonrpc.Error
			if ctx.Err() == nil && errors.As(err, &we) && (we.Code == codeResourceNotFound ||
				we.Code == jsonrpc.CodeInvalidParams && strings.Contains(strings.ToLower(we.Message), "not found")) {
				// MCP's "resource not found": -32602 since SEP-2164
				// (the go-sdk from 1.7), -32002 before. A read tool of a
				// listed resource takes no params, so InvalidParams
				// blamed a caller that sent {}.
				return nil, &abi.ToolError{Code: abi.NotFound, Message: fmt.Sprintf("mcp server %s: %s: %s",
					s.name, call.Tool, s.screenErrorText(call, fmt.Sprintf("resource %s not found (the server answered: %s)", uri, cutErrorText(we.Message))))}
			}
			return nil, s.callFailed(caller, ctx, sess, call, err, since)
		}
		v, err := resourceResult(r)
		if err != nil {
			return nil, abi.Errorf(abi.InvalidResult, "mcp server %s: resource %s: %v", s.name, uri, err)
		}
		return s.screenResult(call, v)
	}
	if tg.prompt != "" {
		args, err := promptArgs(call.Params)
		if err != nil {
			return nil, abi.Errorf(abi.InvalidParams, "mcp server %s: prompt %s: %v", s.name, tg.prompt, err)
		}
		gp := &mcpsdk.GetPromptParams{Name: tg.prompt, Arguments: args}
		r, err := sess.GetPrompt(ctx, gp)
		if again := s.expired(ctx, sess, err); again != nil {
			sess = again
			r, err = sess.GetPrompt(ctx, gp)
		}
		if err != nil {
			return nil, s.callFailed(caller, ctx, sess, call, err, since)
		}
		v, err := promptResult(r)
		if err != nil {
			return nil, abi.Errorf(abi.InvalidResult, "mcp server %s: prompt %s: %v", s.name, tg.prompt, err)
		}
		return s.screenResult(call, v)
	}
	// Whole floats from 2^53 up go in exponent form (abi.ForJSON): as
	// integer literals a server reading integers exactly (Python's json)
	// takes them for other numbers, and so does the bridge reading an
	// echo of them.
	args := abi.ForJSON(call.Params)
	if args == nil {
		args = map[string]any{}
	}
	// The call's depth + 1 goes in _meta, as a remote adapter sends its
	// call's depth + 1 (docs/discovery.md): an aios host behind the
	// server takes it as the depth of the call it runs, so two hosts
	// serving tools through each other stop at limits.max_call_depth
	// (DepthExceeded) instead of calling each other until the deadline.
	// The call's id goes there too, as a remote adapter's parent_id: the
	// host behind records it as its call's parent ("client:<id>"), which
	// links the two audit logs. Other servers ignore what of _meta they
	// do not know.
	meta := func() mcpsdk.Meta {
		m := mcpsdk.Meta{metaDepth: call.Depth + 1}
		if call.ID != "" {
			m[metaParentID] = call.ID
		}
		if !call.Deadline.IsZero() {
			// What is left of the deadline, rounded up (as a remote
			// adapter's timeout_ms): the host behind ran the call under
			// its own default deadline, stopping a call given minutes
			// here at its 30 s.
			m[metaTimeoutMS] = max((time.Until(call.Deadline)+time.Millisecond-1)/time.Millisecond, 1)
		}
		return m
	}
	r, err := sess.CallTool(ctx, &mcpsdk.CallToolParams{Meta: meta(), Name: tg.tool, Arguments: args})
	if again := s.expired(ctx, sess, err); again != nil {
		sess = again
		r, err = sess.CallTool(ctx, &mcpsdk.CallToolParams{Meta: meta(), Name: tg.tool, Arguments: args})
	}
	if err != nil {
		return nil, s.callFailed(caller, ctx, sess, call, err, since)
	}
	// Named as the caller called it, and as the server calls it: an
	// isError result said "tool bigiserror", a name the caller never used.
	name := call.Tool
	if name != tg.tool {
		name += " (" + tg.tool + " on the server)"
	}
	v, err := toolResult(s.name, name, r, tg.structured)
	if err != nil {
		var te *abi.ToolError
		if errors.As(err, &te) && te.Code != abi.InvalidResult {
			te.Message = s.screenErrorText(call, te.Message)
		}
		return nil, err
	}
	return s.screenResult(call, v)
}

// expired handles an HTTP server's 404 to a request of sess (the
// server ended the session; MCP: the client starts a new one, and the
// server did not run the request): it drops sess and returns the new
// session to send the request again on, once (nil when err is another
// error or no new session came up in time).
func (s *server) expired(ctx context.Context, sess *mcpsdk.ClientSession, err error) *mcpsdk.ClientSession {
	if err == nil || !errors.Is(err, mcpsdk.ErrSessionMissing) || ctx.Err() != nil {
		return nil
	}
	s.b.log.Info("mcp server ended the session; starting a new one", "server", s.name)
	s.dropped(sess)
	again := s.awaitRestart(ctx)
	if again == sess {
		return nil
	}
	return again
}

// screenResult screens a result under the server's policy: findings are
// logged (with the call), hidden text is stripped, and under refuse a
// result with any finding is refused.
func (s *server) screenResult(call *abi.ToolCall, v any) (any, error) {
	p := s.cfg.policy()
	out, fs := screen.Value(v, p)
	if len(fs) == 0 {
		return v, nil
	}
	s.noteFindings(call, "result", fs)
	if p == screen.Refuse {
		return nil, &abi.ToolError{Code: abi.InvalidResult,
			Message: fmt.Sprintf("mcp server %s: the result of %s was refused by screening (mcp.servers.%s.screen: refuse): %s", s.name, call.Tool, s.name, screen.Summary(fs)),
			Data:    map[string]any{"screening": fs}}
	}
	return out, nil
}

// screenErrorText screens the text of a failed call (an isError result
// or a JSON-RPC error): under refuse it is stripped, as the call has
// failed already.
func (s *server) screenErrorText(call *abi.ToolCall, msg string) string {
	p := s.cfg.policy()
	if p == screen.Refuse {
		p = screen.Strip
	}
	clean, fs := screen.Text(msg, "", p)
	if len(fs) > 0 {
		s.noteFindings(call, "error text", fs)
	}
	return clean
}

// noteFindings logs what screening found in what of a call's answer.
func (s *server) noteFindings(call *abi.ToolCall, what string, fs []screen.Finding) {
	s.b.log.Warn("mcp server answer screened: untrusted text with hidden characters or injection-like phrases",
		"server", s.name, "tool", call.Tool, "call_id", call.ID, "in", what, "policy", string(s.cfg.policy()), "findings", screen.Summary(fs))
}

// stopReason says why a stopped server takes no more calls: its provider
// was closed (removed or replaced: a new one takes the calls), or the whole
// bridge was (Bridge.Close), after which its tools never answer again.
func (s *server) stopReason() string {
	if s.b != nil && s.b.ctx.Err() != nil {
		return "the MCP bridge was closed; its tools stay unavailable"
	}
	return "the bridge closed its provider (removed or replaced); call the tool again"
}

// callFailed is callError, except for a call that the server's stop ended
// (ctx cancelled while the caller's context goes on): Unavailable.
func (s *server) callFailed(caller, ctx context.Context, sess *mcpsdk.ClientSession, call *abi.ToolCall, err error, since time.Time) error {
	if errors.Is(ctx.Err(), context.Canceled) && caller.Err() == nil {
		return abi.Errorf(abi.Unavailable, "mcp server %s (mcp.servers.%s) was stopped during %s: %s", s.name, s.name, call.Tool, s.stopReason())
	}
	return s.callError(ctx, sess, call, err, since)
}

// testHookBeforeDrop, when set (tests), runs before a call that found
// its connection closed drops the session.
var testHookBeforeDrop func(*server)

// callError maps a failed MCP request on sess, sent at since, to a
// ToolError.
func (s *server) callError(ctx context.Context, sess *mcpsdk.ClientSession, call *abi.ToolCall, err error, since time.Time) error {
	tool := call.Tool
	if ctx.Err() != nil {
		// Timeout or Cancelled, naming the server and the tool: the
		// pipeline passes a Timeout on as it is, and the bare "context
		// deadline exceeded" named neither. The go-sdk sends the server
		// notifications/cancelled for the request.
		te := abi.AsToolError(ctx.Err(), abi.Timeout)
		why := "the call's deadline passed"
		if te.Code == abi.Cancelled {
			why = "its caller cancelled it"
		}
		if waitedForToken(ctx) {
			// The request never left: the bridge waited for a token.
			return &abi.ToolError{Code: te.Code, Message: fmt.Sprintf("mcp server %s (mcp.servers.%s): %s ended, when %s (%v), while the bridge waited for an OAuth token from the server's authorization server (mcp.servers.%s.oauth); the request was not sent",
				s.name, s.name, tool, why, ctx.Err(), s.name)}
		}
		msg := fmt.Sprintf("mcp server %s (mcp.servers.%s) had not answered %s when %s (%v); the bridge sent the server notifications/cancelled",
			s.name, s.name, tool, why, ctx.Err())
		if sl := s.stray.Load(); sl != nil && !sl.at.Before(since) {
			// Its answer may have been that line (TestStrayStdoutLinesSkipped).
			msg += "; meanwhile " + sl.reason
		}
		return &abi.ToolError{Code: te.Code, Message: msg}
	}
	if re := s.refusalFor(err, since); re != nil {
		// A message of the server was refused before decoding (budget.go):
		// the connection is dropped, and the bridge restarts or reconnects
		// to the server; calls meanwhile wait for it.
		s.dropped(sess)
		again := "reconnecting"
		if s.cfg.URL == "" {
			again = "restarting it"
		}
		return &abi.ToolError{Code: abi.TooLarge, Message: fmt.Sprintf("mcp server %s (mcp.servers.%s): during %s the bridge refused %v before decoding it; it closed the connection and is %s",
			s.name, s.name, tool, re, again)}
	}
	var ae *authError
	if errors.As(err, &ae) {
		// The server refused the bridge's credentials for this request
		// (auth.go): the session goes on. A 401 holds for every call
		// until the operator changes the token.
		code := abi.Unavailable
		if ae.status == http.StatusForbidden {
			code = abi.ProviderError
		}
		return &abi.ToolError{Code: code, Message: fmt.Sprintf("mcp server %s: %s: %s", s.name, tool, s.screenErrorText(call, ae.Error()))}
	}
	if errors.Is(err, errStdinStalled) {
		// Its stdin queue overflowed: the connection is over (the calls
		// queued behind this one would otherwise wait for their
		// deadlines on a server that reads nothing).
		s.dropped(sess)
		return &abi.ToolError{Code: abi.ProviderCrashed, Message: fmt.Sprintf("mcp server %s (mcp.servers.%s) stopped reading during %s; the bridge closed the connection and is restarting it: %v", s.name, s.name, tool, err)}
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code == codeRejected && we.Message == msgRejected {
		return s.transportFailure(tool, err)
	}
	if errors.As(err, &we) {
		// The server's text, bounded as an isError result's is.
		text := cutErrorText(we.Message)
		if strings.TrimSpace(text) == "" {
			// "mcp server s: mcp-s-x: " and nothing after said nothing.
			text = fmt.Sprintf("the server answered JSON-RPC error %d with no message", we.Code)
		}
		code := abi.ProviderError
		switch we.Code {
		case jsonrpc.CodeInvalidParams:
			code = abi.InvalidParams
			if lower := strings.ToLower(we.Message); strings.HasPrefix(lower, "unknown tool") || strings.HasPrefix(lower, "unknown prompt") {
				// MCP answers a call of a tool the server does not have
				// with -32602 ("Unknown tool: x" in the spec, the
				// go-sdk's `unknown tool "x"`): the tool is gone since
				// the bridge listed it. NotFound, as a tool that does
				// not exist is in every runtime, not InvalidParams,
				// which blames the caller's params; and the list is read
				// again. So is a prompt the server no longer has
				// (prompts/get: the go-sdk's `unknown prompt "x"`).
				s.onListChanged()
				return &abi.ToolError{Code: abi.NotFound, Message: fmt.Sprintf("mcp server %s no longer offers %s (it answered: %s); the bridge lists its tools again", s.name, call.Tool, s.screenErrorText(call, text))}
			}
		case jsonrpc.CodeMethodNotFound:
			code = abi.NotFound
		case codeResourceNotFound:
			code = abi.NotFound
		}
		return &abi.ToolError{Code: code, Message: fmt.Sprintf("mcp server %s: %s: %s", s.name, call.Tool, s.screenErrorText(call, text))}
	}
	if errors.Is(err, mcpsdk.ErrConnectionClosed) || errors.Is(err, mcpsdk.ErrSessionMissing) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || s.session() == nil {
		if testHookBeforeDrop != nil {
			testHookBeforeDrop(s)
		}
		s.dropped(sess)
		if s.cfg.URL == "" && s.ctx.Err() == nil {
			// A stdio server's connection ends when its process dies (or
			// breaks the protocol, and is then stopped): it crashed
			// handling this call, as a worker of any other runtime can;
			// the bridge restarts it.
			return &abi.ToolError{Code: abi.ProviderCrashed, Message: fmt.Sprintf("mcp server %s (mcp.servers.%s) died during %s; the bridge is restarting it: %v", s.name, s.name, tool, err)}
		}
		return &abi.ToolError{Code: abi.Unavailable, Message: fmt.Sprintf("mcp server %s closed the connection during %s; the bridge is reconnecting: %v", s.name, tool, err)}
	}
	if strings.HasSuffix(err.Error(), msgStreamEnded) {
		// The go-sdk's HTTP transport: the response stream of the request
		// ended before it carried the answer (the server's process ended
		// during the call, or a proxy cut the stream). Not the tool's
		// error: the server went away mid-call, as a stdio server's crash
		// is ProviderCrashed; the session, if it is lost, is found so by
		// the go-sdk's standalone stream.
		return &abi.ToolError{Code: abi.Unavailable, Message: fmt.Sprintf("mcp server %s (mcp.servers.%s) ended the response stream of %s before it answered (the server went down during the call, or a proxy cut the stream); it may have run the call in part",
			s.name, s.name, tool)}
	}
	return &abi.ToolError{Code: abi.ProviderError, Message: fmt.Sprintf("mcp server %s: %s: %v", s.name, tool, err)}
}

// msgStreamEnded is the go-sdk's error (its streamable client transport)
// for a request whose response stream ended without the answer.
const msgStreamEnded = "request terminated without response"

// codeResourceNotFound is MCP's "resource not found" of resources/read
// before SEP-2164 made it -32602 (Invalid params).
const codeResourceNotFound = -32002

// The go-sdk's error (its internal jsonrpc2.ErrRejected) for a request
// its HTTP transport got no JSON-RPC answer to — the server answered 500,
// 502, 503, 504 or 429 without one, or the request did not reach it — and
// that leaves the session up.
const (
	codeRejected = -32005
	msgRejected  = "rejected by transport"
)

// transportFailure is the ToolError of a call of tool that the go-sdk's
// HTTP transport rejected: it said only "rejected by transport", the
// status or the network error being in the text it wrapped. It names the
// status, or what kept the request from the server (not the URL, which
// the error quotes whole: a query may hold a key).
func (s *server) transportFailure(tool string, err error) *abi.ToolError {
	var ue *url.Error
	if errors.As(err, &ue) {
		why := ue.Err
		var oe *net.OpError
		if errors.As(why, &oe) && oe.Err != nil {
			why = oe.Err // not the address
		}
		return &abi.ToolError{Code: abi.Unavailable, Message: fmt.Sprintf("mcp server %s (mcp.servers.%s): %s: the request did not reach the server: %v", s.name, s.name, tool, why)}
	}
	text := err.Error()
	for _, st := range []int{http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout} {
		if strings.HasSuffix(text, ": "+http.StatusText(st)) {
			code := abi.Unavailable // 502, 503, 504: call again later
			switch st {
			case http.StatusTooManyRequests:
				code = abi.RateLimited
			case http.StatusInternalServerError:
				code = abi.ProviderError
			}
			return &abi.ToolError{Code: code, Message: fmt.Sprintf("mcp server %s: %s: the server answered HTTP %d %s, without a JSON-RPC answer", s.name, tool, st, http.StatusText(st))}
		}
	}
	return &abi.ToolError{Code: abi.ProviderError, Message: fmt.Sprintf("mcp server %s: %s: %s", s.name, tool, strings.ReplaceAll(text, s.cfg.URL, s.source))}
}

// minSecretLen is the shortest env value taken for a secret: a shorter
// one ("1", "yes") would be taken out of every text holding it.
const minSecretLen = 6

// secretName says whether an env variable's name says it holds a secret
// (GITHUB_PERSONAL_ACCESS_TOKEN, OPENAI_API_KEY, DB_PASSWORD).
func secretName(k string) bool {
	k = strings.ToUpper(k)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASS", "CREDENTIAL", "AUTH"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// envSecrets replaces the values of a stdio server's env whose names say
// they are secrets (redactToken's) in its stderr lines; nil when it has
// none.
func (s *server) envSecrets() *strings.Replacer {
	pairs := s.envSecretPairs()
	if pairs == nil {
		return nil
	}
	return strings.NewReplacer(pairs...)
}

// envSecretPairs are the values of a stdio server's env whose names say
// they are secrets (secretName), each followed by what it is replaced
// with, in the order of their names.
func (s *server) envSecretPairs() []string {
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(s.cfg.Env)) {
		if v := s.cfg.Env[k]; len(v) >= minSecretLen && secretName(k) {
			pairs = append(pairs, v, "[redacted: mcp.servers."+s.name+" env "+k+"]")
		}
	}
	return pairs
}

// redactConnErr is redactToken for an error of the connection (serve's),
// which is logged and said by Start and Status: a plain error still, its
// text with the secrets taken out; err itself when it quotes none.
func (s *server) redactConnErr(err error) error {
	if err == nil {
		return nil
	}
	r := s.redactToken(err)
	if r == err {
		return err
	}
	return errors.New(abi.AsToolError(r, abi.ProviderError).Message)
}

// redactToken takes a URL server's bearer token out of a failed call's
// error: a server or proxy quoting it ("invalid token …", an echo of its
// request) handed it to the calling agent and into the audit record's
// error, as the inference backend's key is not (docs/pipeline.md). With
// oauth, the access tokens the bridge sent (it has no configured token).
// A stdio server's env values whose names say they are secrets
// (secretName) likewise.
func (s *server) redactToken(err error) error {
	if s.cfg.URL == "" {
		// A stdio server's secrets are in its env (an API key): one
		// that quoted it in a failed call handed it on as a URL
		// server's token was not.
		pairs := s.envSecretPairs()
		for i := 0; i < len(pairs); i += 2 {
			err = redact.Error(err, pairs[i], pairs[i+1])
		}
		return err
	}
	if tok, terr := s.cfg.token(); terr == nil {
		err = redact.Error(err, tok, "[redacted: mcp.servers."+s.name+" token]")
	}
	if ot := s.oauth.Load(); ot != nil {
		for _, tok := range ot.sentTokens() {
			err = redact.Error(err, tok, "[redacted: mcp.servers."+s.name+" oauth access token]")
		}
	}
	return err
}
