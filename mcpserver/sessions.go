package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk keeps every streamable-HTTP session until the client deletes
// it or it idles for mcp.http.session_timeout, and has no bound on their
// number: each costs about 14 KiB (a goroutine and its state), and one
// client can open 1500 a second. So a user (a token's agent and subject;
// the anonymous agent is one user) holds at most mcp.http.max_sessions:
// when they open one more, the session they used least recently is closed.
// Another user's sessions are never touched.

// sessionUse is what the server knows of an HTTP session it saw opened.
type sessionUse struct {
	user    string
	last    uint64 // s.sessSeq at its last request
	version string // the protocol version it negotiated ("" if unknown)
}

// touchSession notes a request of user on session sid.
func (s *Server) touchSession(sid, user string) {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	if u := s.sessUse[sid]; u != nil && u.user == user {
		s.sessSeq++
		u.last = s.sessSeq
	}
}

// sessionVersion is the protocol version session sid of user negotiated
// ("" when this server did not see user open it).
func (s *Server) sessionVersion(sid, user string) string {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	if u := s.sessUse[sid]; u != nil && u.user == user {
		return u.version
	}
	return ""
}

// negotiatedVersion is the version initialize negotiates when the client
// asks for v, as the go-sdk does: v when the go-sdk speaks it (and it
// has sessions), else the newest that has sessions.
func negotiatedVersion(v string) string {
	supported := mcpsdk.SupportedProtocolVersions()
	if slices.Contains(supported, v) && v < sessionlessVersion {
		return v
	}
	for _, sv := range supported {
		if sv < sessionlessVersion {
			return sv
		}
	}
	return ""
}

// openedSession notes that user opened session sid (an initialize that
// succeeded), forgets the sessions that have ended, and closes user's least
// recently used ones beyond the limit.
func (s *Server) openedSession(sid, user string) {
	live := map[string]*mcpsdk.ServerSession{}
	for ss := range s.mcp.Sessions() {
		if id := ss.ID(); id != "" {
			live[id] = ss
		}
	}
	var evict []*mcpsdk.ServerSession
	s.sessMu.Lock()
	s.sessSeq++
	u := &sessionUse{user: user, last: s.sessSeq}
	if ss := live[sid]; ss != nil && ss.InitializeParams() != nil {
		u.version = negotiatedVersion(ss.InitializeParams().ProtocolVersion)
	}
	s.sessUse[sid] = u
	var stop []context.CancelCauseFunc
	var mine []string
	for id, u := range s.sessUse {
		switch {
		case live[id] == nil:
			delete(s.sessUse, id)
		case u.user == user:
			mine = append(mine, id)
		}
	}
	if over := len(mine) - s.cfg.HTTP.MaxSessions; over > 0 {
		sort.Slice(mine, func(i, j int) bool { return s.sessUse[mine[i]].last < s.sessUse[mine[j]].last })
		for _, id := range mine[:over] {
			evict = append(evict, live[id])
			delete(s.sessUse, id)
			stop = append(stop, s.takeCalls(id)...)
		}
	}
	s.sessMu.Unlock()
	for _, cancel := range stop {
		// Said in the call's answer and audit record: the client did
		// not cancel it.
		cancel(fmt.Errorf("the server closed its MCP session: its user opened more than mcp.http.max_sessions (%d)", s.cfg.HTTP.MaxSessions))
	}
	for _, ss := range evict {
		s.log.Info("MCP session closed: its user opened more than mcp.http.max_sessions", "user", user, "session", ss.ID(), "max_sessions", s.cfg.HTTP.MaxSessions)
		// Close waits for the session's requests in flight.
		go ss.Close()
	}
}

// A session that ends (DELETE, or closed for max_sessions) can receive no
// answer, and the go-sdk closes it only once its requests are done: its
// tools/call handlers are cancelled, or the DELETE would wait for them (up
// to their deadline) and the tools would run for no one.

// sessionCall registers cancel as a tools/call handler of HTTP session sid
// ("" for stdio: nothing to do) until the returned func is called; the
// session's end cancels it with a cause saying why. When the session
// already runs mcp.http.max_calls_per_session calls it registers nothing
// and returns their number and false.
func (s *Server) sessionCall(sid string, cancel context.CancelCauseFunc) (done func(), n int, ok bool) {
	if sid == "" {
		return func() {}, 0, true
	}
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	if n := len(s.sessCalls[sid]); n >= s.cfg.HTTP.MaxCallsPerSession {
		return nil, n, false
	}
	s.sessSeq++
	key := s.sessSeq
	if s.sessCalls[sid] == nil {
		s.sessCalls[sid] = map[uint64]context.CancelCauseFunc{}
	}
	s.sessCalls[sid][key] = cancel
	return func() {
		s.sessMu.Lock()
		defer s.sessMu.Unlock()
		if m := s.sessCalls[sid]; m != nil {
			delete(m, key)
			if len(m) == 0 {
				delete(s.sessCalls, sid)
			}
		}
	}, 0, true
}

// takeCalls removes and returns the cancel funcs of session sid's calls
// (sessMu held).
func (s *Server) takeCalls(sid string) []context.CancelCauseFunc {
	var out []context.CancelCauseFunc
	for _, c := range s.sessCalls[sid] {
		out = append(out, c)
	}
	delete(s.sessCalls, sid)
	return out
}

// endSession cancels the calls of session sid when user opened it (a
// DELETE: the go-sdk refuses another user's with 403).
func (s *Server) endSession(sid, user string) {
	s.sessMu.Lock()
	var stop []context.CancelCauseFunc
	if u := s.sessUse[sid]; u != nil && u.user == user {
		stop = s.takeCalls(sid)
	}
	s.sessMu.Unlock()
	for _, cancel := range stop {
		cancel(errSessionDeleted)
	}
}

// errSessionDeleted is the cause of the calls of a session its client
// ended (DELETE).
var errSessionDeleted = errors.New("the MCP client ended its session (HTTP DELETE)")
