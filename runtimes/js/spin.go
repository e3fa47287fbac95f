package js

import (
	"io"
	"os"
	"syscall"
	"time"
)

// spinReader reads a non-blocking pipe, polling it for up to a window
// before it parks on the Go poller. On this VM waking a process or thread
// that sleeps on another vCPU costs 20–90 µs (docs/python.md, "What was
// wrong"), far more than the work of a call; a reader that expects an
// answer within microseconds finds it without sleeping. The Python
// runtime's pipe reader does the same with an adaptive window
// (runtimes/python/pipe.go); this one is simpler: a fixed window per read,
// cut short when the spinner was descheduled (another task wants the CPU,
// and spinning would only delay it).
type spinReader struct {
	f      *os.File
	rc     syscall.RawConn
	window time.Duration

	// state of one Read
	p      []byte
	n      int
	err    error
	until  time.Time
	last   time.Time
	spun   bool
	readFn func(fd uintptr) bool
}

// descheduled is the gap between two polls that means the spinner lost
// its CPU for a while.
const descheduled = 25 * time.Microsecond

func newSpinReader(f *os.File, window time.Duration) (*spinReader, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	r := &spinReader{f: f, rc: rc, window: window}
	r.readFn = r.readOnce
	return r, nil
}

// Read implements io.Reader: one read(2) of whatever is there, spinning
// first on an empty pipe. A read deadline on f applies once it parks.
func (r *spinReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p, r.n, r.err, r.spun = p, 0, nil, r.window <= 0
	r.until, r.last = time.Time{}, time.Time{}
	err := r.rc.Read(r.readFn)
	r.p = nil
	if err != nil {
		return 0, err
	}
	return r.n, r.err
}

func (r *spinReader) readOnce(fd uintptr) bool {
	for {
		n, e := syscall.Read(int(fd), r.p)
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
			if r.spun {
				return false // park on the poller
			}
			now := time.Now()
			if r.until.IsZero() {
				r.until = now.Add(r.window)
			} else if now.After(r.until) || now.Sub(r.last) > descheduled {
				r.spun = true
				return false
			}
			r.last = now
			continue
		case e != nil:
			r.err = e
		case n == 0:
			r.err = io.EOF
		default:
			r.n = n
		}
		return true
	}
}
