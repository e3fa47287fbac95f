package python

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

// Why the host spins (see docs/python.md, "Performance"): a warm call is
// two cross-process pipe wake-ups, host → worker and worker → host. On this
// kind of virtual machine a wake-up of a thread that sleeps on another,
// idle (halted) vCPU costs an inter-processor interrupt and VM exits:
// measured about 40 µs of CPU and more of latency per wake-up, more than
// the whole rest of a warm call. So after writing a call, the calling
// goroutine polls the worker's pipe with non-blocking reads for a short,
// bounded time (runtimes.python.spin) before it parks on Go's poller, and
// it tells the worker (the call envelope's "spin" key) to poll for the next
// call after writing its result. When the other side answers within the
// window, neither thread sleeps and no wake-up is paid.
//
// The host alone decides, per call, and the worker follows: a worker's
// spin pays only when the host spins for the answer too, and two separate
// controllers fell out of step (each one's probe failed because the other
// was asleep).
//
// Spins run out for three reasons: the tool is slow; both processes run on
// the same vCPU (the guest scheduler packs tasks), where spinning only keeps
// the other side from running and sleeping is cheap (a local wake-up, no
// interrupt); or the machine is busy. So spinning adapts:
//
//   - after more than spinMissesOK spins in a row ran out, the next 2, 4,
//     ... up to maxSpinSkip calls do not spin; a spin that catches the
//     answer resets that. A single miss changes nothing.
//   - a wait without spinning tells the cases apart: a short one (the same
//     vCPU) keeps skipping; one longer than 1/longWait of the window but
//     shorter than idleWait windows (an expensive cross-CPU wake-up that a
//     spin would have saved) counts twice, so spinning resumes sooner after
//     the processes are placed apart again.
//   - the first spin after a skip or a miss is probeSpin windows long: the
//     worker was asleep, and the probe has to cover its wake-up.
//   - a spinner is a CPU-bound task to the scheduler: on a CPU shared with
//     another busy task it is time-sliced instead of preempting that task
//     on wake-up as a sleeper would. A spin loop that sees a gap of more
//     than preemptGap between two iterations (one takes a microsecond or
//     two) was descheduled: it stops at once and skipping starts at once
//     (the worker stops its spin the same way).
//
// A slow tool or an idle provider therefore costs a spin window now and
// then; nothing spins while no call is in flight, except a worker for up
// to one window after its answer.
const (
	preemptGap   = 25 * time.Microsecond
	spinMissesOK = 2
	maxSpinSkip  = 256
	longWait     = 2
	idleWait     = 40
	probeSpin    = 2
)

// spinSkipAfter is how many calls skip spinning after misses spins in a
// row ran out.
func spinSkipAfter(misses int) int {
	if misses <= spinMissesOK {
		return 0
	}
	return min(1<<min(misses-spinMissesOK, 8), maxSpinSkip)
}

// spinSkipAfterWait is the calls left to skip after a wait without
// spinning that took waited.
func spinSkipAfterWait(skip int, spin, waited time.Duration) int {
	if skip > 0 && waited > spin/longWait && waited < idleWait*spin {
		return skip - 1
	}
	return skip
}

// cancelPoll is how often a call parked on the worker's pipe looks at its
// context for a cancellation (the deadline itself is a read deadline).
const cancelPoll = 20 * time.Millisecond

// pipeReader reads the worker → host pipe. Reads spin for up to spin
// (when armed) before parking on the poller with the read deadline.
type pipeReader struct {
	f  *os.File
	rc syscall.RawConn

	// spin is the spin window of the next Read (0: park at once).
	spin time.Duration
	// hit and miss record what spinning did since the last reset: the data
	// came while spinning (hit) or the window ran out (miss); preempted
	// that a spin was cut short because the thread lost its CPU.
	hit, miss, preempted bool

	// While a call reads, ctx and deadline bound the wait: a park ends at
	// the deadline or cancelPoll later to look at ctx, and Read returns a
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

// stopError is why a call stopped reading: its deadline passed or its
// context ended. The stream may be mid-frame: the worker is killed.
type stopError struct{ cause error }

func (e *stopError) Error() string { return e.cause.Error() }

// begin bounds the reads of a call by ctx and deadline (zero: none).
func (r *pipeReader) begin(ctx context.Context, deadline time.Time) error {
	r.ctx, r.deadline = ctx, deadline
	return r.rearm()
}

// end ends the reads of a call.
func (r *pipeReader) end() { r.ctx = nil }

// rearm sets the read deadline of the next park, or says why not to wait.
func (r *pipeReader) rearm() error {
	if err := r.ctx.Err(); err != nil {
		return &stopError{err}
	}
	now := time.Now()
	if !r.deadline.IsZero() && !now.Before(r.deadline) {
		return &stopError{context.DeadlineExceeded}
	}
	next := now.Add(cancelPoll)
	if !r.deadline.IsZero() && r.deadline.Before(next) {
		next = r.deadline
	}
	return r.f.SetReadDeadline(next)
}

func newPipeReader(f *os.File) (*pipeReader, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	r := &pipeReader{f: f, rc: rc}
	r.readFn = r.readOnce // one method value, not a closure per Read
	return r, nil
}

// readOnce is the RawConn callback of Read: it reads into r.p, spinning on
// EAGAIN while r.left allows; false parks on the poller (and the poller
// calls it again when the pipe is readable).
func (r *pipeReader) readOnce(fd uintptr) bool {
	for {
		k, e := syscall.Read(int(fd), r.p)
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
				r.miss = true
				return false
			case now.Sub(r.last) > preemptGap:
				// Descheduled mid-spin: another task wants this CPU.
				r.left = 0
				r.miss, r.preempted = true, true
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
				r.hit = true
			}
		}
		return true
	}
}

// Read implements io.Reader: at most one read(2) of data, spinning first
// if armed.
func (r *pipeReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p, r.n, r.err = p, 0, nil
	r.left, r.until, r.last = r.spin, time.Time{}, time.Time{}
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
