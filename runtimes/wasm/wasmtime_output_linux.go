//go:build wasmtime

package wasm

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"

	wt "github.com/bytecodealliance/wasmtime-go/v39"
)

// guestOutput carries a wasmtime provider's guest stdout and stderr to its
// log sink, as wazero's writers do. wasmtime-go's WASI configuration takes
// file paths, not writers, so each stream is a pipe whose write end every
// instance's store opens by its /proc/self/fd path; a goroutine per stream
// reads the other end into the sink.
type guestOutput struct {
	pipes [2]*guestPipe
	// mu orders configure and close: a store must not open a write end's
	// /proc/self/fd path after close freed that descriptor number, which
	// the host may by then have given to a file of its own.
	mu     sync.Mutex
	closed bool
}

// guestPipe is one stream's pipe.
type guestPipe struct {
	r, w *os.File
	wfd  uintptr
	rc   syscall.RawConn
	out  stream
	mu   sync.Mutex // one reader at a time: the goroutine or drain
	buf  []byte
	done chan struct{}
}

func newGuestOutput(sink *logSink) (*guestOutput, error) {
	o := &guestOutput{}
	for ix := range o.pipes {
		p, err := newGuestPipe(stream{sink, ix, nil})
		if err != nil {
			o.close()
			return nil, fmt.Errorf("guest %s: %w", streamNames[ix], err)
		}
		o.pipes[ix] = p
	}
	return o, nil
}

func newGuestPipe(out stream) (*guestPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	rc, err := r.SyscallConn()
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	p := &guestPipe{r: r, w: w, wfd: w.Fd(), rc: rc, out: out, buf: make([]byte, 32<<10), done: make(chan struct{})}
	go p.loop()
	return p, nil
}

// loop copies the pipe into the sink until every write end is closed.
func (p *guestPipe) loop() {
	defer close(p.done)
	defer p.r.Close()
	for {
		eof := false
		err := p.rc.Read(func(fd uintptr) bool {
			p.mu.Lock()
			defer p.mu.Unlock()
			n, err := syscall.Read(int(fd), p.buf)
			switch {
			case n > 0:
				p.out.Write(p.buf[:n])
			case errors.Is(err, syscall.EAGAIN):
				return false // wait until readable
			case errors.Is(err, syscall.EINTR):
			default:
				eof = true
			}
			return true
		})
		if err != nil || eof {
			return
		}
	}
}

// drain copies what the pipe holds now into the sink: everything a guest
// call that has returned wrote is in the sink when drain returns.
func (p *guestPipe) drain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.rc.Control(func(fd uintptr) {
		for {
			n, err := syscall.Read(int(fd), p.buf)
			if n > 0 {
				p.out.Write(p.buf[:n])
				continue
			}
			if !errors.Is(err, syscall.EINTR) {
				return
			}
		}
	})
}

// configure points a store's WASI stdout and stderr at the pipes.
func (o *guestOutput) configure(c *wt.WasiConfig) error {
	if o == nil { // runtimes.wasm.stdout: discard
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return errors.New("the provider is closed")
	}
	if err := c.SetStdoutFile(fmt.Sprintf("/proc/self/fd/%d", o.pipes[0].wfd)); err != nil {
		return fmt.Errorf("guest stdout: %w", err)
	}
	if err := c.SetStderrFile(fmt.Sprintf("/proc/self/fd/%d", o.pipes[1].wfd)); err != nil {
		return fmt.Errorf("guest stderr: %w", err)
	}
	return nil
}

// drain copies both streams' pending output into the sink.
func (o *guestOutput) drain() {
	if o == nil {
		return
	}
	for _, p := range o.pipes {
		p.drain()
	}
}

// close closes the host's write ends: each reader ends once the stores
// that opened the pipe are closed too, after copying what they wrote.
func (o *guestOutput) close() {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.closed = true
	for _, p := range o.pipes {
		if p != nil {
			p.w.Close()
		}
	}
}
