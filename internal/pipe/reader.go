// Package pipe reads a worker process's pipe the way both worker
// runtimes (Python, JS) need: a Read first polls the non-blocking pipe for
// up to a spin window, because waking a sleeping thread costs far more
// than a call on the virtual machines this runs on, then parks on the Go
// poller; a call's deadline and context bound the wait without ever
// cutting a frame.
package pipe

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

// PreemptGap is the gap between two polls of a spin that means the
// spinner was descheduled (another task wants the CPU): the spin stops.
const PreemptGap = 25 * time.Microsecond

// CancelPoll is how often a call parked on the worker's pipe looks at its
// context for a cancellation (the deadline itself is a read deadline).
const CancelPoll = 20 * time.Millisecond

// Reader reads a worker → host pipe (a non-blocking *os.File). A Read
// spins for up to Spin before it parks on the poller with the read
// deadline (runtimes/python/pipe.go says why, and how Python adapts Spin).
type Reader struct {
	f  *os.File
	rc syscall.RawConn

	// Spin is the spin window of the next Read (<= 0: park at once).
	Spin time.Duration
	// Hit and Miss record what spinning did since the caller last reset
	// them: the data came while spinning (Hit) or the window ran out
	// (Miss); Preempted that a spin was cut short because the thread lost
	// its CPU (a gap of more than PreemptGap between two polls).
	Hit, Miss, Preempted bool

	// While a call reads, ctx and deadline bound the wait: a park ends at
	// the deadline or CancelPoll later to look at ctx, and Read returns a
	// *stopError only when the call must end. Without ctx (registration),
	// Read returns os.ErrDeadlineExceeded at the file's read deadline.
	ctx      context.Context
	deadline time.Time

	// State of the Read in progress, for readOnce.
	readFn func(fd uintptr) bool
	p      []byte
	n      int
	err    error
	left   time.Duration // spin left: 0 parks at once
	until  time.Time     // end of the spin (zero: not started)
	last   time.Time     // previous spin iteration
}

// StopError is why a call stopped reading: its deadline passed or its
// context ended. The stream may be mid-frame: the worker is killed.
type StopError struct{ Cause error }

func (e *StopError) Error() string { return e.Cause.Error() }

// Begin bounds the reads of a call by ctx and deadline (zero: none).
func (r *Reader) Begin(ctx context.Context, deadline time.Time) error {
	r.ctx, r.deadline = ctx, deadline
	return r.rearm()
}

// End ends the reads of a call.
func (r *Reader) End() { r.ctx = nil }

// rearm sets the read deadline of the next park, or says why not to wait.
func (r *Reader) rearm() error {
	if err := r.ctx.Err(); err != nil {
		return &StopError{err}
	}
	now := time.Now()
	if !r.deadline.IsZero() && !now.Before(r.deadline) {
		return &StopError{context.DeadlineExceeded}
	}
	next := now.Add(CancelPoll)
	if !r.deadline.IsZero() && r.deadline.Before(next) {
		next = r.deadline
	}
	return r.f.SetReadDeadline(next)
}

// NewReader reads f, which must be pollable (os.Pipe's ends are).
func NewReader(f *os.File) (*Reader, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	r := &Reader{f: f, rc: rc}
	r.readFn = r.readOnce // one method value, not a closure per Read
	return r, nil
}

// readOnce is the RawConn callback of Read: it reads into r.p, spinning on
// EAGAIN while r.left allows; false parks on the poller (and the poller
// calls it again when the pipe is readable).
func (r *Reader) readOnce(fd uintptr) bool {
	for {
		k, e := readFD(fd, r.p)
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
			if r.left <= 0 {
				return false // park on the poller
			}
			now := time.Now()
			switch {
			case r.until.IsZero():
				r.until = now.Add(r.left)
			case now.After(r.until):
				r.left = 0
				r.Miss = true
				return false
			case now.Sub(r.last) > PreemptGap:
				// Descheduled mid-spin: another task wants this CPU.
				r.left = 0
				r.Miss, r.Preempted = true, true
				return false
			}
			r.last = now
			continue
		case e != nil:
			r.err = e
		case k == 0:
			r.err = io.EOF
		default:
			r.n = k
			if !r.until.IsZero() && r.left > 0 {
				r.Hit = true
			}
		}
		return true
	}
}

// Read implements io.Reader: at most one read(2) of data, spinning first
// if armed.
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p, r.n, r.err = p, 0, nil
	r.left, r.until, r.last = r.Spin, time.Time{}, time.Time{}
	defer func() { r.p = nil }()
	for {
		err := r.rc.Read(r.readFn)
		if err == nil {
			return r.n, r.err
		}
		if r.ctx == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
			return 0, err
		}
		// A poll for cancellation, or the deadline: the bytes read so far
		// stay with the caller, so a frame is never cut here.
		if err := r.rearm(); err != nil {
			return 0, err
		}
	}
}
