package mcpserver

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// GET streams of a session. MCP (2025-06-18 and later, "Multiple
// Connections") lets a client stay connected to several SSE streams at
// once, the server sending each message on one of them. The go-sdk keeps
// one GET stream per session and answers another GET with 409 Conflict
// while it is open — for ever, when the connection under it is half-open:
// a client whose stream broke without the server noticing (a network
// change, a laptop asleep) could not open it again and heard no
// tools/list_changed for the rest of the session. So the newest GET of a
// session takes the stream over: the go-sdk lets the older one go, and
// the older one stays open without messages (parked) until its client
// closes it, the session ends, or the server closes; closing it would make
// a client that keeps two streams open reopen it, taking the stream back.
// When the stream serving the messages ends (its client closed it), the
// newest parked one serves them again: open, it would be the client's
// stream that hears nothing (TestParkedStreamResumes).

// getStream is a GET request the go-sdk serves.
type getStream struct {
	detach   context.CancelFunc // makes the go-sdk let the stream go
	detached atomic.Bool
	released chan struct{} // closed once the go-sdk has let it go
}

// parkedGET is a parked GET stream: when it came (arrival, its place
// among the session's GETs) and how it is told to end or serve again.
type parkedGET struct {
	arrival uint64
	wake    chan bool
}

// maxParkedGETs bounds the older GET streams a session keeps open; the
// oldest ends when another is parked.
const maxParkedGETs = 4

// serveGET serves a GET of session sid through next (the go-sdk), taking
// the session's stream over from an older GET.
func (s *Server) serveGET(w http.ResponseWriter, r *http.Request, sid string, next http.Handler) {
	resumed := false // a parked stream served again (its header went out)
	// Parked streams are ordered by when their GETs came, not by when they
	// parked: a GET parks on its own goroutine once a newer one took the
	// stream, and of two opened within an instant the newer may park
	// first (or re-park, served again and taken over).
	arrival := s.getArrivals.Add(1)
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithCancel(r.Context())
		g := &getStream{detach: cancel, released: make(chan struct{})}
		s.getMu.Lock()
		s.gets[sid] = append(s.gets[sid], g)
		s.getMu.Unlock()
		var sw http.ResponseWriter = w
		if resumed {
			sw = &headerSent{ResponseWriter: w}
		}
		cw := &conflictWriter{ResponseWriter: sw}
		next.ServeHTTP(cw, r.WithContext(ctx))
		s.getMu.Lock()
		if l := slices.DeleteFunc(s.gets[sid], func(o *getStream) bool { return o == g }); len(l) > 0 {
			s.gets[sid] = l
		} else {
			delete(s.gets, sid)
		}
		s.getMu.Unlock()
		close(g.released)
		cancel()
		switch {
		case cw.conflict && resumed:
			// A newer GET took the stream meanwhile: park again.
			if !s.park(r.Context(), sid, arrival) {
				return
			}
		case cw.conflict && attempt < 3:
			// The go-sdk checked the request (its session, its user) and
			// refused it only for the stream another GET holds.
			s.detachGETs(sid)
			h := w.Header()
			h.Del("Content-Type")
			h.Del("X-Content-Type-Options")
		case cw.conflict:
			http.Error(w, "stream ID conflicts with ongoing stream", http.StatusConflict)
			return
		case g.detached.Load() && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream"):
			// (A GET the go-sdk refused meanwhile has its answer.)
			if !s.park(r.Context(), sid, arrival) {
				return
			}
			resumed = true
		default:
			switch sse := strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream"); {
			case sse && r.Context().Err() != nil:
				// The stream's client left: a parked one serves the
				// messages now.
				s.resumeParked(sid)
			case sse:
				// The go-sdk ended the stream it serves, its client still
				// there: the session ended (the go-sdk lists it a moment
				// longer). The parked ones end with it.
				s.endParked(sid)
			}
			return
		}
	}
}

// detachGETs makes the go-sdk let go of the GET streams of session sid
// it serves, and waits until it has.
func (s *Server) detachGETs(sid string) {
	s.getMu.Lock()
	gs := slices.Clone(s.gets[sid])
	s.getMu.Unlock()
	for _, g := range gs {
		g.detached.Store(true)
		g.detach()
	}
	for _, g := range gs {
		<-g.released
	}
}

// park holds a GET stream the go-sdk let go until its client closes it,
// the session ends (endParked: the stream the go-sdk serves ends with it),
// the server closes, or maxParkedGETs newer ones are parked (false), or it
// is to serve the session's messages again (true, resumeParked). arrival
// places it among the session's parked streams (serveGET). No goroutine
// waits for the session's end: one would outlive Close.
func (s *Server) park(ctx context.Context, sid string, arrival uint64) bool {
	// Told once, under getMu, by whoever takes it off s.parked: false to
	// end, true to serve again.
	wake := make(chan bool, 1)
	s.getMu.Lock()
	if s.recentlyEnded(sid) {
		s.getMu.Unlock()
		return false
	}
	p := s.parked[sid]
	i, _ := slices.BinarySearchFunc(p, arrival, func(g parkedGET, a uint64) int { return cmp.Compare(g.arrival, a) })
	p = slices.Insert(p, i, parkedGET{arrival, wake})
	if len(p) > maxParkedGETs {
		// The oldest GET ends (this one, when all the others came later).
		p[0].wake <- false
		p = slices.Delete(p, 0, 1)
	}
	s.parked[sid] = p
	s.getMu.Unlock()
	// Checked once parked: a session that ends from now on has its parked
	// streams ended (endParked, once its served stream has ended).
	if s.sessionLive(sid) {
		select {
		case <-ctx.Done():
		case <-s.stop.Done():
		case resume := <-wake:
			return resume
		}
	}
	s.getMu.Lock()
	if l := slices.DeleteFunc(s.parked[sid], func(g parkedGET) bool { return g.wake == wake }); len(l) > 0 {
		s.parked[sid] = l
	} else {
		delete(s.parked, sid)
	}
	s.getMu.Unlock()
	select {
	case resume := <-wake:
		if resume && ctx.Err() == nil && s.stop.Err() == nil {
			// (told to serve again as it ended: the next one will)
			s.resumeParked(sid)
		}
	default:
	}
	return false
}

// sessionLive says whether the go-sdk still has session sid.
func (s *Server) sessionLive(sid string) bool {
	for ss := range s.mcp.Sessions() {
		if ss.ID() == sid {
			return true
		}
	}
	return false
}

// maxEndedGETs bounds endedGETs.
const maxEndedGETs = 16

// endedGrace is how long after endParked a GET of the session is not
// parked: the go-sdk lists an ended session a moment longer (it takes
// milliseconds). Not for longer: a stream the go-sdk ended for another
// reason (a write that timed out) leaves its session live, whose client
// may keep two streams.
const endedGrace = time.Second

// endedGET is a session whose served GET stream the go-sdk ended, and when.
type endedGET struct {
	sid string
	at  time.Time
}

// recentlyEnded says whether endParked ran for sid within endedGrace
// (getMu held).
func (s *Server) recentlyEnded(sid string) bool {
	for _, e := range s.endedGETs {
		if e.sid == sid && time.Since(e.at) < endedGrace {
			return true
		}
	}
	return false
}

// endParked ends the parked GET streams of session sid, whose served
// stream the go-sdk ended, and for endedGrace refuses to park more (a GET
// parking as the session ends, which the go-sdk may list a moment longer).
func (s *Server) endParked(sid string) {
	s.getMu.Lock()
	defer s.getMu.Unlock()
	s.endedGETs = append(s.endedGETs, endedGET{sid, time.Now()})
	if len(s.endedGETs) > maxEndedGETs {
		s.endedGETs = slices.Delete(s.endedGETs, 0, 1)
	}
	for _, g := range s.parked[sid] {
		g.wake <- false
	}
	delete(s.parked, sid)
}

// resumeParked tells the newest parked GET stream of session sid (the GET
// that came last), if any, to serve its messages again.
func (s *Server) resumeParked(sid string) {
	s.getMu.Lock()
	defer s.getMu.Unlock()
	p := s.parked[sid]
	if len(p) == 0 {
		return
	}
	p[len(p)-1].wake <- true
	if p = p[:len(p)-1]; len(p) > 0 {
		s.parked[sid] = p
	} else {
		delete(s.parked, sid)
	}
}

// headerSent is the response of a parked GET stream served again: its
// header went out when it was first served. An answer other than 200 (the
// session ended meanwhile: 404) is not written into the stream.
type headerSent struct {
	http.ResponseWriter
	refused bool
}

func (w *headerSent) WriteHeader(code int) { w.refused = w.refused || code != http.StatusOK }

func (w *headerSent) Write(p []byte) (int, error) {
	if w.refused {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

func (w *headerSent) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// conflictWriter holds back the go-sdk's 409 answer to a GET (the session's
// stream is held by another GET), so that the GET can be served again.
type conflictWriter struct {
	http.ResponseWriter
	conflict bool
}

func (w *conflictWriter) WriteHeader(code int) {
	if code == http.StatusConflict {
		w.conflict = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *conflictWriter) Write(p []byte) (int, error) {
	if w.conflict {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

func (w *conflictWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
