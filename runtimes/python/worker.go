package python

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// bootstrap is the -c program of every worker: argv[1] is the SDK folder
// followed by the interpreter's normal sys.path (newline-separated), argv[2]
// the tool file, argv[3] the start gate fd. Workers start with -S (site.py
// and its .pth files cost tens of milliseconds); the probe's sys.path puts
// the site-packages folders back.
const bootstrap = "import sys;p=sys.argv[1].split(chr(10));sys.path[:0]=p[:1];sys.path+=[x for x in p[1:] if x not in sys.path];from aios_sdk._worker import main;main()"

// gateFd is the fd number of the start gate in the worker.
const gateFd = 3

// stderrTail is how much of a worker's stderr is kept for crash reports.
const stderrTail = 2048

// stderrLinesPerSecond caps the stderr lines of one worker that are logged.
const stderrLinesPerSecond = 100

// worker is one python process serving one call at a time.
type worker struct {
	p   *Provider
	pid int
	ps  *os.Process
	in  *os.File // host → worker
	out *os.File // worker → host
	br  *bufio.Reader

	wmu  sync.Mutex
	wbuf []byte

	mu        sync.Mutex
	cur       *inflight
	killedFor string // why the host killed it ("" if it died by itself)

	dead     chan struct{} // closed when the process is reaped
	deathMsg string        // set before dead is closed

	errMu   sync.Mutex
	errTail []byte
	errDone chan struct{}

	seq atomic.Uint64
}

// inflight is the call a worker is serving.
type inflight struct {
	id  string
	ctx context.Context
	env abi.Env
	res chan *abi.ToolResult
}

// startWorker starts a sandboxed worker for p and reads its registration.
func (p *Provider) startWorker(ctx context.Context) (*worker, *abi.ToolRegister, error) {
	var pipes [8]*os.File
	closeAll := func() {
		for _, f := range pipes {
			if f != nil {
				_ = f.Close()
			}
		}
	}
	for i := 0; i < 8; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("python worker pipes: %v", err)
		}
		pipes[i], pipes[i+1] = r, w
	}
	inR, inW, outR, outW, errR, errW, gateR, gateW := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5], pipes[6], pipes[7]

	cfg := p.rt.cfg
	spec := spawnSpec{
		argv:        p.argv(),
		env:         []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "HOME=/nonexistent"},
		dir:         p.dir,
		files:       []*os.File{inR, outW, errW, gateR},
		read:        p.readPaths(),
		network:     p.network,
		layers:      p.rt.Layers(),
		memoryBytes: uint64(cfg.MemoryMB) << 20,
		cpuSeconds:  uint64(cfg.CPUSeconds),
	}
	ps, err := spawn(spec)
	for _, f := range []*os.File{inR, outW, errW, gateR} {
		_ = f.Close()
	}
	if err != nil {
		for _, f := range []*os.File{inW, outR, errR, gateW} {
			_ = f.Close()
		}
		return nil, nil, fmt.Errorf("starting %s for %s: %v", p.ip.exe, p.path, err)
	}
	w := &worker{
		p: p, pid: ps.Pid, ps: ps, in: inW, out: outR,
		br:      bufio.NewReaderSize(outR, 64<<10),
		dead:    make(chan struct{}),
		errDone: make(chan struct{}),
	}
	go w.readStderr(errR)
	if err := limit(ps.Pid, spec); err != nil {
		_ = gateW.Close()
		w.abort()
		return nil, nil, err
	}
	_ = gateW.Close() // let the worker import the tool file

	reg, err := w.handshake(ctx, cfg.StartupTimeout)
	if err != nil {
		w.abort()
		return nil, nil, err
	}
	go w.readLoop()
	return w, reg, nil
}

// argv is the worker's command line.
func (p *Provider) argv() []string {
	args := []string{p.ip.exe, "-I", "-B", "-X", "utf8"}
	if !p.rt.cfg.Site {
		args = append(args, "-S")
	}
	paths := strings.Join(append([]string{p.ip.sdkDir}, p.ip.sysPath...), "\n")
	return append(args, "-c", bootstrap, paths, p.path, strconv.Itoa(gateFd))
}

// abort kills a worker that never got its reader loop and reaps it.
func (w *worker) abort() {
	killGroup(w.pid)
	_ = w.in.Close()
	_ = w.out.Close()
	_, _ = w.ps.Wait()
	close(w.dead)
}

// handshake reads the first frame: the registration, or a load error.
func (w *worker) handshake(ctx context.Context, timeout time.Duration) (*abi.ToolRegister, error) {
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = w.out.SetReadDeadline(deadline)
	defer func() { _ = w.out.SetReadDeadline(time.Time{}) }()
	env, err := w.readEnvelope()
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			killGroup(w.pid)
			return nil, fmt.Errorf("%s: the python worker did not register within %v (a long-running import or a loop at module level?)%s", w.p.path, timeout, w.stderrNote())
		}
		state := w.waitExit()
		return nil, fmt.Errorf("%s: the python worker exited before registering (%s)%s", w.p.path, state, w.stderrNote())
	}
	switch {
	case env.Kind == abi.KindRegister && env.Register != nil:
		return env.Register, nil
	case env.Kind == abi.KindLog && env.Log != nil:
		w.waitExit()
		return nil, errors.New(env.Log.Message)
	}
	return nil, fmt.Errorf("%s: the python worker sent %q before registering", w.p.path, env.Kind)
}

// waitExit waits (briefly) for the process to end and describes how.
func (w *worker) waitExit() string {
	done := make(chan string, 1)
	go func() {
		st, err := w.ps.Wait()
		if err != nil {
			done <- err.Error()
			return
		}
		done <- st.String()
	}()
	select {
	case s := <-done:
		return s
	case <-time.After(2 * time.Second):
		killGroup(w.pid)
		return <-done
	}
}

func (w *worker) readEnvelope() (*abi.Envelope, error) {
	frame, err := abi.ReadFrame(w.br, abi.DefaultMaxFrame)
	if err != nil {
		return nil, err
	}
	codec, err := abi.DetectCodec(frame)
	if err != nil {
		return nil, &protocolError{fmt.Sprintf("the worker wrote an unreadable frame: %v", err)}
	}
	var env abi.Envelope
	if err := codec.Unmarshal(frame, &env); err != nil {
		return nil, &protocolError{fmt.Sprintf("the worker wrote an unreadable frame: %v", err)}
	}
	return &env, nil
}

type protocolError struct{ msg string }

func (e *protocolError) Error() string { return e.msg }

// readStderr logs the worker's stderr (tool print()s, tracebacks) line by
// line and keeps the tail for crash reports.
func (w *worker) readStderr(r *os.File) {
	defer close(w.errDone)
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	// At most stderrLinesPerSecond lines a second reach the log; the rest
	// are counted and reported, so a chatty tool cannot flood the host log.
	var window time.Time
	var logged, dropped int
	for sc.Scan() {
		line := sc.Text()
		if now := time.Now(); now.Sub(window) >= time.Second {
			if dropped > 0 {
				w.p.log.Warn("python stderr lines suppressed", "pid", w.pid, "lines", dropped)
			}
			window, logged, dropped = now, 0, 0
		}
		w.errMu.Lock()
		w.errTail = append(w.errTail, line...)
		w.errTail = append(w.errTail, '\n')
		if len(w.errTail) > stderrTail {
			w.errTail = append(w.errTail[:0], w.errTail[len(w.errTail)-stderrTail:]...)
		}
		w.errMu.Unlock()
		if logged >= stderrLinesPerSecond {
			dropped++
			continue
		}
		logged++
		w.p.log.Info("python stderr", "pid", w.pid, "line", line)
	}
	if dropped > 0 {
		w.p.log.Warn("python stderr lines suppressed", "pid", w.pid, "lines", dropped)
	}
}

// stderrNote returns "; stderr: …" with the last lines of stderr, if any.
func (w *worker) stderrNote() string {
	select {
	case <-w.errDone:
	case <-time.After(500 * time.Millisecond):
	}
	w.errMu.Lock()
	defer w.errMu.Unlock()
	s := strings.TrimSpace(string(w.errTail))
	if s == "" {
		return ""
	}
	return "; stderr: " + s
}

// readLoop dispatches the worker's frames until its output ends, then reaps
// it and fails the call in flight.
func (w *worker) readLoop() {
	for {
		env, err := w.readEnvelope()
		if err != nil {
			var pe *protocolError
			if errors.As(err, &pe) {
				w.kill("protocol violation: " + pe.msg)
				continue // read on until EOF
			}
			break
		}
		switch env.Kind {
		case abi.KindResult:
			w.mu.Lock()
			c := w.cur
			// After a kill (protocol violation) nothing more is believed.
			if c != nil && c.id == env.ID && env.Result != nil && w.killedFor == "" {
				w.cur = nil
				c.res <- env.Result
			}
			w.mu.Unlock()
		case abi.KindHostCall:
			w.mu.Lock()
			c := w.cur
			w.mu.Unlock()
			go w.serveHost(c, env.ID, env.Host)
		case abi.KindLog:
			if env.Log != nil {
				w.logRecord(env.Log)
			}
		default:
			w.kill(fmt.Sprintf("protocol violation: the worker sent a %q envelope", env.Kind))
		}
	}
	killGroup(w.pid)
	state := w.waitExit()
	w.mu.Lock()
	why := w.killedFor
	w.mu.Unlock()
	msg := fmt.Sprintf("python worker (pid %d) of %s exited: %s", w.pid, filepath.Base(w.p.path), state)
	if why != "" {
		msg = fmt.Sprintf("python worker (pid %d) of %s was killed: %s", w.pid, filepath.Base(w.p.path), why)
	} else if strings.Contains(state, "signal: killed") || strings.Contains(state, "cpu time") {
		msg += " (killed: the memory or CPU limit may have been reached)"
	}
	w.deathMsg = msg + w.stderrNote()
	_ = w.in.Close()
	_ = w.out.Close()
	close(w.dead)
}

// kill kills the worker's process group, remembering why.
func (w *worker) kill(why string) {
	w.mu.Lock()
	if w.killedFor == "" {
		w.killedFor = why
	}
	w.mu.Unlock()
	killGroup(w.pid)
}

// alive reports whether the worker can take a call: not reaped and not
// being killed.
func (w *worker) alive() bool {
	select {
	case <-w.dead:
		return false
	default:
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.killedFor == ""
}

func (w *worker) logRecord(rec *abi.LogRecord) {
	log := w.p.log
	w.mu.Lock()
	if c := w.cur; c != nil && c.env != nil && c.id == rec.CallID {
		log = c.env.Logger()
	}
	w.mu.Unlock()
	level := slog.LevelInfo
	switch rec.Level {
	case "debug":
		level = slog.LevelDebug
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	}
	log.Log(context.Background(), level, rec.Message, "pid", w.pid)
}

// send writes one envelope as a single frame.
func (w *worker) send(env *abi.Envelope) error {
	payload, err := abi.JSON.Marshal(env)
	if err != nil {
		return err
	}
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.wbuf = append(w.wbuf[:0], 0, 0, 0, 0)
	binary.BigEndian.PutUint32(w.wbuf, uint32(len(payload)))
	w.wbuf = append(w.wbuf, payload...)
	_, err = w.in.Write(w.wbuf)
	if cap(w.wbuf) > 1<<20 {
		w.wbuf = nil // do not pin a large buffer
	}
	return err
}

// sendCall writes the call envelope (hand-encoded, see encode.go).
func (w *worker) sendCall(id string, call *abi.ToolCall) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	b, err := appendCallFrame(w.wbuf[:0], id, call)
	if err != nil {
		var ee encodeError
		if errors.As(err, &ee) {
			return err
		}
		// Not JSON-encodable params.
		return encodeError(err.Error())
	}
	_, err = w.in.Write(b)
	if cap(b) > 1<<20 {
		b = nil // do not pin a large buffer
	}
	w.wbuf = b
	return err
}

// call serves one call. broken reports that the worker must not be reused.
func (w *worker) call(ctx context.Context, call *abi.ToolCall, env abi.Env) (v any, err error, broken bool) {
	id := call.ID
	if id == "" {
		id = "py-" + strconv.FormatUint(w.seq.Add(1), 10)
	}
	c := &inflight{id: id, ctx: ctx, env: env, res: make(chan *abi.ToolResult, 1)}
	w.mu.Lock()
	w.cur = c
	w.mu.Unlock()
	if err := w.sendCall(id, call); err != nil {
		var ee encodeError
		if errors.As(err, &ee) {
			w.mu.Lock()
			w.cur = nil
			w.mu.Unlock()
			return nil, abi.Errorf(abi.InvalidParams, "tool %s: %v", call.Tool, err), false
		}
		w.kill("writing the call failed: " + err.Error())
		<-w.dead
		return nil, w.crashed(call), true
	}
	var timer <-chan time.Time
	if !call.Deadline.IsZero() {
		if d, ok := ctx.Deadline(); !ok || call.Deadline.Before(d) {
			t := time.NewTimer(time.Until(call.Deadline))
			defer t.Stop()
			timer = t.C
		}
	}
	select {
	case r := <-c.res:
		if r.Error != nil {
			return nil, r.Error, false
		}
		return r.Value, nil, false
	case <-w.dead:
		return nil, w.crashed(call), true
	case <-ctx.Done():
		return nil, w.interrupt(call, ctx.Err()), true
	case <-timer:
		return nil, w.interrupt(call, context.DeadlineExceeded), true
	}
}

func (w *worker) crashed(call *abi.ToolCall) *abi.ToolError {
	return abi.Errorf(abi.ProviderCrashed, "tool %s: %s", call.Tool, w.deathMsg)
}

// interrupt kills the worker at the deadline or on cancellation.
func (w *worker) interrupt(call *abi.ToolCall, cause error) *abi.ToolError {
	w.mu.Lock()
	w.cur = nil
	w.mu.Unlock()
	if errors.Is(cause, context.Canceled) {
		w.kill("the call was cancelled")
		return abi.Errorf(abi.Cancelled, "tool %s: the call was cancelled; python worker (pid %d) killed and replaced", call.Tool, w.pid)
	}
	w.kill("the call's deadline passed")
	return abi.Errorf(abi.Timeout, "tool %s: the deadline passed; python worker (pid %d) and its process group killed and replaced", call.Tool, w.pid)
}

// stop ends an idle worker: stdin is closed so it exits by itself, and its
// process group is killed if it is still there after grace.
func (w *worker) stop(grace time.Duration) {
	_ = w.in.Close()
	go func() {
		select {
		case <-w.dead:
		case <-time.After(grace):
			w.kill("the provider was closed")
		}
	}()
}
