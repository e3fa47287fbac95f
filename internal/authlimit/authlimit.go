// Package authlimit slows down guessing of bearer tokens: a client
// address that presented too many invalid tokens in a window is refused
// (HTTP 429) until the window ends, whatever it presents then.
package authlimit

import (
	"net"
	"sync"
	"time"
)

// Defaults: 10 invalid tokens a minute from one address; at most 10 000
// addresses tracked.
const (
	DefaultFailures = 10
	DefaultWindow   = time.Minute
	DefaultTracked  = 10000
)

// Limiter counts invalid tokens per client IP. The zero value is not
// usable: use New.
type Limiter struct {
	failures int
	window   time.Duration
	tracked  int
	now      func() time.Time

	mu sync.Mutex
	m  map[string]*entry
}

type entry struct {
	start time.Time // of the window
	fails int
}

// New returns a Limiter refusing an address after failures invalid tokens
// within window (the defaults for values ≤ 0).
func New(failures int, window time.Duration) *Limiter {
	if failures <= 0 {
		failures = DefaultFailures
	}
	if window <= 0 {
		window = DefaultWindow
	}
	return &Limiter{failures: failures, window: window, tracked: DefaultTracked, now: time.Now, m: map[string]*entry{}}
}

// Key is the address a limit applies to: the IP of remoteAddr (an
// http.Request's RemoteAddr, IP:port) — for IPv6 its /64 network, which
// one client usually holds whole —, or remoteAddr itself.
func Key(remoteAddr string) string {
	h, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		h = remoteAddr
	}
	ip := net.ParseIP(h)
	switch {
	case ip == nil:
		return h
	case ip.To4() != nil:
		return ip.To4().String() // ::ffff:a.b.c.d too
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// Blocked says whether key is refused now, and for how long still.
func (l *Limiter) Blocked(key string) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.m[key]
	if e == nil || e.fails < l.failures {
		return 0, false
	}
	left := l.window - l.now().Sub(e.start)
	if left <= 0 {
		delete(l.m, key)
		return 0, false
	}
	return left, true
}

// Fail counts an invalid token from key; true when this one reached the
// limit (the address is refused from now on, until its window ends).
func (l *Limiter) Fail(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	e := l.m[key]
	if e != nil && now.Sub(e.start) >= l.window {
		e.start, e.fails = now, 0
	}
	if e == nil {
		if len(l.m) >= l.tracked {
			l.evict(now)
		}
		e = &entry{start: now}
		l.m[key] = e
	}
	e.fails++
	return e.fails == l.failures
}

// evict makes room: the entries whose window ended go, and when none
// has, the one of the oldest window (a refused address stays refused:
// only addresses under the limit are dropped first).
func (l *Limiter) evict(now time.Time) {
	var oldest string
	var oldestStart time.Time
	for k, e := range l.m {
		if now.Sub(e.start) >= l.window {
			delete(l.m, k)
			continue
		}
		if e.fails < l.failures && (oldest == "" || e.start.Before(oldestStart)) {
			oldest, oldestStart = k, e.start
		}
	}
	if len(l.m) >= l.tracked && oldest != "" {
		delete(l.m, oldest)
	}
	if len(l.m) >= l.tracked {
		// Every tracked address is refused: drop one anyway, the map
		// stays bounded.
		for k := range l.m {
			delete(l.m, k)
			break
		}
	}
}
