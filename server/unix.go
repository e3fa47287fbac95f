package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/wire"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

// Socket transport
//
// One JSON-RPC message (a request, a batch, a response or a notification)
// per line: UTF-8 JSON without raw newlines, terminated by '\n'. A
// connection may carry many requests at once; responses come back as each
// finishes (match them by id), and subscriptions push
// aios/notification.tools_changed on the same connection.
//
// The caller is the socket peer's uid (SO_PEERCRED on Linux,
// LOCAL_PEERCRED on macOS and FreeBSD), mapped to an agent by
// server.uids; the host's own uid maps to default_agent (cli). Other uids
// get one error line and the connection is closed.

// maxConcurrentPerConn bounds the requests one connection runs at once.
const maxConcurrentPerConn = 32

func (s *Server) acceptUnix(ln net.Listener) {
	defer s.wg.Done()
	for {
		conn, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveUnix(conn)
		}()
	}
}

// peerUID returns the uid of the process on the other end of a unix
// socket (peerCredUID: SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS and
// FreeBSD; an error where the platform cannot tell, so the connection is
// refused).
func peerUID(conn net.Conn) (uint32, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return 0, errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var uid uint32
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		uid, cerr = peerCredUID(fd)
	}); err != nil {
		return 0, err
	}
	if cerr != nil {
		return 0, cerr
	}
	return uid, nil
}

func (s *Server) serveUnix(conn net.Conn) {
	uid, err := peerUID(conn)
	agent, ok := s.uids[uid]
	if err != nil || !ok {
		e := jsonrpc.Errorf(abi.CapabilityDenied, "uid %d is not allowed on this socket (map it to an agent in server.uids)", uid)
		if err != nil {
			e = jsonrpc.Errorf(abi.CapabilityDenied, "cannot read the peer's credentials: %v", err)
		}
		_ = conn.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		_, _ = conn.Write(append(mustMarshal(errorResponse(nil, e)), '\n'))
		conn.Close()
		return
	}
	// One uid holds at most max_conns_per_uid connections: each costs a
	// goroutine, buffers and up to 32 calls at once.
	s.mu.Lock()
	n := s.uidConns[uid]
	if n >= s.cfg.MaxConnsPerUID {
		s.mu.Unlock()
		_ = conn.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		_, _ = conn.Write(append(mustMarshal(errorResponse(nil, jsonrpc.Limited("server.max_conns_per_uid", 0,
			"uid %d already holds %d connections to this socket, the limit (server.max_conns_per_uid): close one, or send more requests on one connection", uid, n))), '\n'))
		conn.Close()
		return
	}
	s.uidConns[uid] = n + 1
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.uidConns[uid]--; s.uidConns[uid] <= 0 {
			delete(s.uidConns, uid)
		}
		s.mu.Unlock()
	}()
	s.serveConn(conn, agent, host.Origin{Principal: "uid:" + strconv.FormatUint(uint64(uid), 10)})
}

// ServeConn serves newline-delimited JSON-RPC on conn as agent until the
// peer closes it, it idles past idle_timeout, or a message takes longer
// than read_timeout to arrive. It closes conn. A nil conn is logged and
// serves nothing.
func (s *Server) ServeConn(conn net.Conn, agent string) {
	if conn == nil {
		s.log.Error("ServeConn: the connection is nil; nothing is served", "agent", agent)
		return
	}
	s.serveConn(conn, agent, host.Origin{})
}

func (s *Server) serveConn(conn net.Conn, agent string, origin host.Origin) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		conn.Close()
		return
	}
	ctx, cancelCause := context.WithCancelCause(context.Background())
	cancel := func() { cancelCause(nil) }
	s.conns[conn] = cancelCause
	s.mu.Unlock()
	var wmu sync.Mutex
	write := func(b []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		// Each wire.ProgressChunk under a deadline of its own: a peer
		// that stops reading is dropped, not one reading a large answer
		// slowly.
		_, err := wire.WriteProgress(conn, conn.SetWriteDeadline, append(b, '\n'), s.cfg.WriteTimeout)
		if err != nil {
			conn.Close() // a peer that does not read is dropped
		}
		return err
	}
	sess := &session{agent: agent, transport: "unix", subs: &subscriptions{}, origin: origin, inflight: &inflightRequests{}}
	sess.notify = func(n *jsonrpc.Notification) error { return write(mustMarshal(n)) }
	var inflight sync.WaitGroup
	// busy counts the messages being handled, lastDone is when the last
	// one ended (unix nanoseconds): a connection waiting for an answer is
	// not idle, and its idle time starts when its last answer is written.
	var busy atomic.Int32
	var lastDone atomic.Int64
	var idleUntil time.Time // the end of the idle wait, when not from now
	sem := make(chan struct{}, maxConcurrentPerConn)
	halfClosed := false
	defer func() {
		if halfClosed {
			// The peer shut down only its write side (`nc -N`, socat
			// after its input ends): it waits for the answers, and
			// for the notifications of its subscriptions (it got EOF
			// after the subscribe answer). The calls run on until they
			// end, the subscriptions until the server closes or the
			// peer hangs up.
			waitCalls(ctx, conn, &inflight, sess.subs.active)
		}
		// The calls in flight end (cancelled when the server closes or
		// the peer hangs up) and their responses are written before the
		// connection closes: a client gets an answer for every request
		// it sent, even at shutdown.
		cancel()
		sess.subs.closeAll()
		inflight.Wait()
		conn.Close()
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
	}()
	r := bufio.NewReaderSize(conn, 64<<10)
	// consumed counts the bytes of the stream read as lines; applied are
	// the stream offsets of the cancels that cancelsAhead applied before
	// their line was read, which the loop then skips.
	var consumed int64
	applied := map[int64]bool{}
	// cancelsAhead applies the notifications/cancelled among the whole
	// lines the peer sent after the message waiting for a slot, as far
	// as the reader's buffer holds (64 KiB, hundreds of calls), without
	// consuming them: the loop reads nothing while it waits, so a cancel
	// behind a queued request was not read until a call ended by itself.
	cancelsAhead := func() {
		if n := r.Buffered(); n < r.Size() {
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
			_, _ = r.Peek(n + 1) // what more the peer sent, if any
		}
		buf, _ := r.Peek(r.Buffered())
		off := consumed
		for {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				return
			}
			if msg := trimNL(buf[:i]); !applied[off] && isCancel(msg) {
				applied[off] = true
				if out := s.handleMessage(ctx, sess, bytes.Clone(msg)); out != nil {
					_ = write(out)
				}
			}
			off += int64(i + 1)
			buf = buf[i+1:]
		}
	}
	for {
		// Idle wait for the first byte, then the whole line within
		// read_timeout. A connection holding a subscription is not idle:
		// it waits for notifications without sending anything, for as
		// long as the peer keeps it open (a peer that stops reading is
		// dropped by the write deadline). Nor is one waiting for an
		// answer: a call running past idle_timeout (limits.max_deadline
		// allows 10 minutes, idle_timeout is 5) was cancelled with its
		// connection, as if its caller had gone.
		if ctx.Err() != nil {
			return // the server is closing
		}
		if sess.subs.active() {
			_ = conn.SetReadDeadline(time.Time{})
		} else if !idleUntil.IsZero() {
			_ = conn.SetReadDeadline(idleUntil)
			idleUntil = time.Time{}
		} else {
			_ = conn.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
		}
		if _, err := r.Peek(1); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && ctx.Err() == nil {
				if sess.subs.active() || busy.Load() > 0 {
					continue // subscribed, or an answer awaited, while the idle wait ran
				}
				if until := time.Unix(0, lastDone.Load()).Add(s.cfg.IdleTimeout); time.Now().Before(until) {
					idleUntil = until // idle since the last answer only
					continue
				}
			}
			halfClosed = isEOF(err) && !peerGone(conn)
			return
		}
		_ = conn.SetReadDeadline(time.Now().Add(s.cfg.ReadTimeout))
		line, err := jsonrpc.ReadLine(r, int(s.cfg.MaxBodyBytes))
		start := consumed
		consumed += int64(len(line))
		if err != nil {
			var ne net.Error
			switch {
			case errors.As(err, &ne) && ne.Timeout():
				_ = write(mustMarshal(errorResponse(nil, jsonrpc.Errorf(abi.Timeout, "message not received within %s (server.read_timeout); closing", s.cfg.ReadTimeout))))
			case !errors.Is(err, net.ErrClosed) && !isEOF(err):
				_ = write(mustMarshal(errorResponse(nil, jsonrpc.Errorf(abi.TooLarge, "invalid request: %v (server.max_body_bytes); closing", err))))
			case isEOF(err):
				halfClosed = !peerGone(conn)
			}
			return
		}
		if len(trimNL(line)) == 0 {
			continue
		}
		if applied[start] {
			delete(applied, start) // a cancel applied while a message waited
			continue
		}
		msg := trimNL(line)
		if isCancel(msg) {
			// A cancel takes no slot: sent while the calls it would
			// end fill every one, it waited for them to end (found by
			// p141). It only looks up and cancels, so it runs here.
			if out := s.handleMessage(ctx, sess, msg); out != nil {
				_ = write(out)
			}
			continue
		}
		// While every slot is taken the loop does not read, so it
		// would not see the peer hang up: acquire watches for that, and
		// for the timeout_ms of a call, counted from now.
		read := time.Now()
		if refused, ok := s.acquire(ctx, conn, sess, sem, msg, read, cancelsAhead); !ok {
			if refused != nil {
				// Refused while it waited (its timeout_ms ran out, or
				// its client cancelled it): a tools/call is recorded as
				// any refused call (found by p163: it had no audit
				// record, and /metrics did not count it).
				if refused.params != nil {
					s.recordRefusedCall(ctx, sess, refused.params, refused.err)
				}
				_ = write(mustMarshal(errorResponse(refused.id, jsonrpc.Errorf(refused.err.Code, "%s", refused.err.Message))))
				continue
			}
			return // the peer hung up: its calls are cancelled
		}
		inflight.Add(1)
		busy.Add(1)
		// A request (a batch's requests) is keyed for
		// notifications/cancelled before the next message is read: a
		// cancel sent right behind it was often read first, found
		// nothing and was lost.
		keyedCh := make(chan struct{})
		var keyedOnce sync.Once
		isKeyed := func() { keyedOnce.Do(func() { close(keyedCh) }) }
		go func(msg []byte) {
			defer func() {
				isKeyed()
				lastDone.Store(time.Now().UnixNano())
				busy.Add(-1)
				<-sem
				inflight.Done()
			}()
			gate := &answerGate{Context: context.WithValue(context.WithValue(ctx, readAtKey{}, read), keyedKey{}, isKeyed)}
			defer gate.open()
			if out := s.handleMessage(gate, sess, msg); out != nil {
				if testHookBeforeAnswer != nil {
					testHookBeforeAnswer()
				}
				_ = write(out)
			}
		}(msg)
		<-keyedCh
	}
}

// isCancel reports whether msg is one message (not a batch) of
// CancelMethod, which a connection handles without a slot.
func isCancel(msg []byte) bool {
	if !bytes.Contains(msg, []byte(CancelMethod)) {
		return false
	}
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Method == CancelMethod
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// acquire takes a slot of sem for a message of conn, read at read. While
// every slot is taken it looks at the peer every 200 ms, and gives up
// (nil, false) when the peer has hung up: a peer that sent more requests
// than run at once and then went had its calls run on to their deadline.
// (When the server closes, the calls are cancelled and free their slots,
// so the message is still answered, Cancelled.) A tools/call whose
// timeout_ms runs out while it waits is not run: acquire returns its
// Timeout answer instead of a slot (found with the leftovers of p141: it
// waited for a slow call to end, then ran with its whole timeout again).
// At each look it applies the cancels the peer sent after the message
// (ahead); one naming the message itself, which is in flight for its
// client, answers it Cancelled without running it.
func (s *Server) acquire(ctx context.Context, conn net.Conn, sess *session, sem chan struct{}, msg []byte, read time.Time, ahead func()) (refused *waitRefusal, ok bool) {
	select {
	case sem <- struct{}{}:
		return nil, true
	default:
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var expiry <-chan time.Time
	w := slotWaitOf(msg, read)
	if !w.deadline.IsZero() {
		t := time.NewTimer(time.Until(w.deadline))
		defer t.Stop()
		expiry = t.C
	}
	var cancelled <-chan struct{}
	var id json.RawMessage
	if !jsonrpc.IsBatch(msg) && sess.inflight != nil {
		var req bool
		if id, req = requestID(msg); req && len(id) > 0 {
			wctx, done := sess.inflight.track(ctx, id)
			defer done()
			cancelled = wctx.Done()
		}
	}
	// byClient is the answer to the message when its client cancelled it
	// (not the server closing: then it runs, and is answered Cancelled).
	byClient := func() *waitRefusal {
		select {
		case <-cancelled:
			if ctx.Err() == nil {
				return &waitRefusal{id: id, params: w.params, err: abi.Errorf(abi.Cancelled,
					"%v while it waited for a free slot of its connection (a socket connection runs %d requests at once; the others were still running); it did not run",
					errCancelledByClient, maxConcurrentPerConn)}
			}
		default:
		}
		return nil
	}
	for {
		select {
		case sem <- struct{}{}:
			if a := byClient(); a != nil {
				<-sem // (the cancel that freed the slot may have named it too)
				return a, false
			}
			return nil, true
		case <-tick.C:
			if peerHungUp(conn) {
				return nil, false
			}
			ahead()
		case <-cancelled:
			if a := byClient(); a != nil {
				return a, false
			}
			cancelled = nil // the server closes: the message runs, answered Cancelled
		case <-expiry:
			return &waitRefusal{id: w.id, params: w.params, err: &abi.ToolError{Code: abi.Timeout, Message: w.timeoutText()}}, false
		}
	}
}

// waitRefusal is acquire's answer to a message it gave no slot: the
// message's id, its params when it is a tools/call (to record the
// refused call), and why.
type waitRefusal struct {
	id     json.RawMessage
	params json.RawMessage
	err    *abi.ToolError
}

// timeoutText is the refusal of w's call, whose timeout_ms ran out while
// it waited for a slot.
func (w *slotWait) timeoutText() string {
	return fmt.Sprintf("the call of %s reached its timeout_ms (%d ms) while it waited for a free slot of its connection (a socket connection runs %d requests at once; the others were still running); it did not run",
		w.tool, w.ms, maxConcurrentPerConn)
}

// slotWait is what acquire needs of a message: of a single tools/call its
// params (to record it when refused), and, given an id and a timeout_ms,
// the deadline at which it stops waiting for a slot.
type slotWait struct {
	deadline time.Time // zero: wait as long as it takes
	id       json.RawMessage
	tool     string
	ms       int64
	params   json.RawMessage // the tools/call params, for its record
}

func slotWaitOf(msg []byte, read time.Time) slotWait {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	var p struct {
		Name      string `json:"name"`
		TimeoutMS int64  `json:"timeout_ms"`
	}
	if jsonrpc.IsBatch(msg) || json.Unmarshal(msg, &m) != nil || m.Method != "tools/call" {
		return slotWait{}
	}
	w := slotWait{params: m.Params} // (recorded if its client cancels it)
	if len(m.ID) == 0 || string(m.ID) == "null" || json.Unmarshal(m.Params, &p) != nil || p.TimeoutMS <= 0 || p.Name == "" {
		return w
	}
	ms := min(p.TimeoutMS, int64(math.MaxInt64/time.Millisecond))
	w.deadline, w.id, w.tool, w.ms = read.Add(time.Duration(ms)*time.Millisecond), m.ID, p.Name, ms
	return w
}

// readAtKey marks a socket message's context with when it was read: a
// call's timeout_ms counts from then, not from when it got a slot.
type readAtKey struct{}

// waitCalls waits for the calls in flight on a half-closed connection,
// and then while subscribed says it holds a subscription, until ctx ends
// (the server closes) or the peer hangs up.
func waitCalls(ctx context.Context, conn net.Conn, inflight *sync.WaitGroup, subscribed func() bool) {
	done := make(chan struct{})
	go func() {
		inflight.Wait()
		close(done)
	}()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			if !subscribed() {
				return
			}
			done = nil // the calls ended; the subscriptions go on
		case <-ctx.Done():
			return
		case <-tick.C:
			if peerGone(conn) || done == nil && !subscribed() {
				return
			}
		}
	}
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}
