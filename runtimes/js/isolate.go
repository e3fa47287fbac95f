package js

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/hostop"
	"github.com/aios-host/aios-host/internal/pipe"
	"github.com/aios-host/aios-host/internal/proclimit"
	"github.com/aios-host/aios-host/internal/wire"
)

// Process isolation (Options.Isolation): a provider runs in a worker
// process of its own, a copy of the host's executable started with
// AIOS_JS_WORKER=1 (procworker.go), which runs the same in-process runtime
// and speaks the ABI's stream transport (abi.Envelope frames, in the format
// negotiated by the hello exchange, internal/wire: MessagePack unless
// Options.Wire says json) on its stdin and stdout. The worker limits the memory it may map for
// data with RLIMIT_DATA, so a built-in asked to build a result larger
// than that kills the worker, not the host: the calls in flight fail with
// ProviderCrashed and the next call starts a new worker. The host bundles
// the file once and sends the bundle, so a restarted worker runs the code
// that was registered even if the file has changed since.

// kindClose (host → worker, private to this package's worker protocol)
// says the provider was closed while calls were in flight: the worker
// closes its in-process provider, which refuses the calls still waiting
// for one of its runtimes, and serves on those running.
const kindClose = "close"

// workerEnv marks a process started as a JS worker.
const workerEnv = "AIOS_JS_WORKER"

// formatsEnv, when set in a worker's environment, restricts the formats
// its hello offers (comma-separated; tests use it to play an older or
// JSON-only worker). The host sets it only when workerFormats is set.
const formatsEnv = "AIOS_JS_WORKER_FORMATS"

// workerFormats is what the host puts in formatsEnv ("": nothing; tests).
var workerFormats string

// procGrace is how long past a call's deadline the host waits for a
// worker's answer before it kills the worker: the worker keeps deadlines
// itself (its watchdog, and abandonGrace for a built-in that cannot be
// interrupted), so this is only for a worker that stopped answering.
const procGrace = defaultAbandonGrace + 2*time.Second

// stderrLinger is how long after a worker has exited the host waits for
// the end of its stderr.
const stderrLinger = 500 * time.Millisecond

// procStartSlack is added to LoadTimeout for starting a worker process.
const procStartSlack = 20 * time.Second

// isolated reports whether src is loaded into a worker process.
func (r *Runtime) isolated(src abi.Source) bool {
	switch r.opts.Isolation {
	case IsolationProcess:
		return true
	case IsolationUntrusted:
		return src.Trust == abi.Untrusted
	}
	return false
}

// loadRequest is the first frame the host sends a worker.
type loadRequest struct {
	V          int     `msgpack:"v" json:"v"`
	Path       string  `msgpack:"path" json:"path"`
	ProviderID string  `msgpack:"provider_id,omitempty" json:"provider_id,omitempty"`
	Unit       string  `msgpack:"unit,omitempty" json:"unit,omitempty"` // abi.Source.Unit, for the default id
	Runtime    string  `msgpack:"runtime" json:"runtime"`
	Name       string  `msgpack:"name" json:"name"`
	Code       string  `msgpack:"code" json:"code"`
	Options    Options `msgpack:"options" json:"options"` // without Logger
}

// ProcessProvider is a provider whose code runs in a worker process.
type ProcessProvider struct {
	rt      *Runtime
	req     loadRequest
	reg     *abi.ToolRegister
	tools   map[string]bool
	logger  *slog.Logger
	logs    *logGate
	mu      sync.Mutex
	w       *procWorker
	closed  bool
	started atomic.Int64 // workers started, the first included

	failures int       // workers in a row that died without answering (under mu)
	deadAt   time.Time // when the last of them died (under mu)

	busy    atomic.Int32 // calls between worker() and their answer
	lastUse atomic.Int64 // when the last call ended (UnixNano)
	idle    *time.Timer  // stops an idle worker (Options.WorkerIdle)
}

var (
	_ abi.Provider       = (*ProcessProvider)(nil)
	_ abi.DeadlineKeeper = (*ProcessProvider)(nil)
)

// loadProcess starts a provider's first worker and takes its registration.
func (r *Runtime) loadProcess(b *bundled, src abi.Source, runtime string) (abi.Provider, error) {
	logger := src.Logger
	if logger == nil {
		logger = r.opts.Logger
	}
	p := &ProcessProvider{
		rt:     r,
		logger: logger,
		logs:   newLogGate(logger, workerLogLinesPerSecond),
		req: loadRequest{
			V: abi.FormatVersion, Path: src.Path, ProviderID: src.ProviderID, Unit: src.Unit, Runtime: runtime,
			Name: b.Name, Code: b.Code, Options: r.opts,
		},
	}
	w, reg, err := p.start()
	if err != nil {
		if errors.As(err, new(*workerLoadError)) {
			return nil, err // it names the file already
		}
		return nil, fmt.Errorf("load %s: %w", src.Path, err)
	}
	p.reg = reg
	p.tools = make(map[string]bool, len(reg.Tools))
	for _, t := range reg.Tools {
		p.tools[t.Name] = true
	}
	p.w = w
	p.armIdle()
	logger.Info("JS provider isolated in a worker process", "provider", reg.Provider.ID,
		"pid", w.cmd.Process.Pid, "memory_limit_mib", r.opts.ProcessMemory>>20)
	return p, nil
}

// Describe implements abi.Provider.
func (p *ProcessProvider) Describe() *abi.ToolRegister { return p.reg }

// KeepsDeadlines implements abi.DeadlineKeeper: Call returns by the
// deadline plus procGrace (killing a worker that does not answer).
func (p *ProcessProvider) KeepsDeadlines() bool { return true }

// PoolStats implements host.PoolStats (the aios_provider_pool metric): the
// provider's one worker process, busy while a call is in flight.
func (p *ProcessProvider) PoolStats() (idle, busy int) {
	p.mu.Lock()
	alive := p.w != nil
	p.mu.Unlock()
	switch {
	case p.busy.Load() > 0:
		return 0, 1
	case alive:
		return 1, 0
	}
	return 0, 0
}

// PID returns the process id of the provider's worker (0 when none runs).
func (p *ProcessProvider) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil || !p.w.alive() {
		return 0
	}
	return p.w.cmd.Process.Pid
}

// Wire returns the wire format of the provider's running worker ("" when
// none runs): what its hello exchange chose.
func (p *ProcessProvider) Wire() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil || !p.w.alive() {
		return ""
	}
	return p.w.codec.Name()
}

// Started returns how many worker processes the provider has started.
func (p *ProcessProvider) Started() int { return int(p.started.Load()) }

// Close implements abi.Provider: the worker's stdin is closed once its
// calls in flight have answered (at once when there are none), so it
// exits; it is killed if it has not after a grace period.
func (p *ProcessProvider) Close() error {
	p.mu.Lock()
	w := p.w
	p.closed = true
	p.w = nil
	if p.idle != nil {
		p.idle.Stop()
	}
	p.mu.Unlock()
	if w != nil {
		w.shutdown(5 * time.Second)
	}
	return nil
}

// Call implements abi.Provider.
func (p *ProcessProvider) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (any, error) {
	if call == nil {
		return nil, abi.NilCall(p)
	}
	if !p.tools[call.Tool] {
		return nil, abi.Errorf(abi.NotFound, "provider %s has no tool %q", p.reg.Provider.ID, call.Tool)
	}
	w, err := p.worker()
	if err != nil {
		return nil, err
	}
	defer func() {
		p.lastUse.Store(time.Now().UnixNano())
		p.busy.Add(-1)
	}()
	deadline := call.Deadline
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	if deadline.IsZero() {
		deadline = time.Now().Add(p.rt.opts.DefaultTimeout)
	}
	// A call that comes back through one of this provider's host calls
	// (procNestKey, put on in serveHost) is marked so, for the worker's
	// pool: the runtime that made the host call waits for it.
	nested := call.Depth > 0 && ctx.Value(procNestKey{p}) != nil
	return w.call(ctx, call, env, deadline, nested)
}

// procNestKey marks the context of a host call of p's worker: a call that
// reaches p again with it comes back through one of p's own calls.
type procNestKey struct{ p *ProcessProvider }

// worker returns the running worker, starting one when there is none or
// the last one died.
func (p *ProcessProvider) worker() (*procWorker, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, abi.Errorf(abi.Unavailable, "provider %s is closed", p.reg.Provider.ID)
	}
	if p.rt.closed.Load() {
		return nil, abi.Errorf(abi.Unavailable, "provider %s: %s", p.reg.Provider.ID, runtimeClosed)
	}
	if p.w != nil && p.w.alive() {
		p.busy.Add(1)
		return p.w, nil
	}
	if p.w != nil { // it died
		if p.w.answered.Load() {
			p.failures = 0
		} else {
			p.failures++
		}
		p.deadAt = p.w.diedAt
		p.w = nil
	}
	if wait := restartBackoff(p.failures) - time.Since(p.deadAt); wait > 0 {
		return nil, &abi.ToolError{Code: abi.Unavailable,
			Message: fmt.Sprintf("provider %s: its worker process died %d times in a row without answering; the next start is in %v",
				p.reg.Provider.ID, p.failures, wait.Round(time.Millisecond)),
			Data: map[string]any{"retry_after_ms": wait.Milliseconds()}}
	}
	w, reg, err := p.start()
	if err != nil {
		return nil, abi.Errorf(abi.Unavailable, "provider %s: cannot restart its worker process: %v", p.reg.Provider.ID, err)
	}
	if !sameTools(reg, p.reg) {
		w.shutdown(0)
		return nil, abi.Errorf(abi.Unavailable, "provider %s: its restarted worker registered other tools", p.reg.Provider.ID)
	}
	p.w = w
	p.busy.Add(1)
	p.armIdle()
	return w, nil
}

// restartBackoff is how long after the last death a provider whose
// workers died n times in a row without answering waits before it starts
// another: a tool that kills its worker on every call must not make every
// call start a process.
func restartBackoff(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	return min(50*time.Millisecond<<min(n-2, 7), 5*time.Second)
}

// armIdle (p.mu held) starts the timer that stops the worker once no call
// has used it for Options.WorkerIdle: an idle worker holds ~25 MiB, and a
// new one starts in ~10 ms when the next call comes (BenchmarkProcessLoad).
func (p *ProcessProvider) armIdle() {
	d := p.rt.opts.WorkerIdle
	if d <= 0 {
		return
	}
	p.lastUse.Store(time.Now().UnixNano())
	if p.idle == nil {
		p.idle = time.AfterFunc(d, p.reapIdle)
	} else {
		p.idle.Reset(d)
	}
}

// reapIdle stops the worker if it has been idle long enough, or looks
// again when it will have been.
func (p *ProcessProvider) reapIdle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.w == nil {
		return
	}
	d := p.rt.opts.WorkerIdle
	if left := time.Until(time.Unix(0, p.lastUse.Load()).Add(d)); p.busy.Load() != 0 || left > 0 {
		p.idle.Reset(max(left, d/4))
		return
	}
	p.w.shutdown(5 * time.Second)
	p.w = nil
	p.logger.Info("JS worker process stopped after being idle", "provider", p.reg.Provider.ID, "idle", d)
}

func sameTools(a, b *abi.ToolRegister) bool {
	if a.Provider.ID != b.Provider.ID || len(a.Tools) != len(b.Tools) {
		return false
	}
	for i := range a.Tools {
		if a.Tools[i].Name != b.Tools[i].Name || a.Tools[i].Version != b.Tools[i].Version {
			return false
		}
	}
	return true
}

// procWorker is one worker process and the calls it serves.
//
// There is no reader goroutine: a goroutine waiting for its call's result
// reads the worker's frames itself (the leader, holding rmu) and hands
// the results of other calls to their goroutines; when it has its own it
// passes the place on (rfree). A lone caller thus sends its call and reads
// its result without waking any other goroutine (each wake-up may be a
// cross-vCPU futex wake, the main cost of a call here).
type procWorker struct {
	p      *ProcessProvider
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *os.File      // read end of the worker's stdout (non-blocking)
	stdout *bufio.Reader // over a pipe.Reader on out, spinning for up to Options.Spin
	wmu    sync.Mutex    // one frame at a time on stdin
	codec  abi.Codec     // the negotiated wire format (MsgPack until the hello exchange)
	trace  *wire.Tracer  // debug log of every frame (nil unless debug logging is on)

	// hostSlots bounds the host calls running at once (hostop.MaxInFlight):
	// the reader waits for a slot before it reads on.
	hostSlots hostop.Slots

	rmu   sync.Mutex    // held by the goroutine reading stdout
	rfree chan struct{} // a token: the reader's place is free
	rdl   time.Time     // out's read deadline (under rmu)

	mu       sync.Mutex
	calls    map[string]*procCall
	seq      uint64
	killedBy string // why the host killed the worker (a frame it refused), for died
	// registered is set once the worker registered: an end before that
	// is the load's error, not a crash to log (died).
	registered bool
	exited     bool // died ran (under mu, as registered: who closes out)

	dead     chan struct{} // closed when the process has exited
	deathErr *abi.ToolError
	// closing: shutdown was asked (the provider closed); a death after it
	// is not a crash when the host stopped the worker (stopped) or it
	// exited once its stdin closed.
	closing  atomic.Bool
	stopped  atomic.Bool // shutdown killed it (no grace, or the grace ran out)
	diedAt   time.Time   // set before dead is closed
	answered atomic.Bool // the worker has answered a call
	stderr   stderrTail
}

// procCall is a call the worker is serving.
type procCall struct {
	ctx  context.Context
	env  abi.Env
	done chan *abi.ToolResult
	hard time.Time // the deadline plus procGrace
}

// start runs a worker process, sends it the bundle and waits for its
// registration.
func (p *ProcessProvider) start() (*procWorker, *abi.ToolRegister, error) {
	if errNoProcessIsolation != nil {
		return nil, nil, errNoProcessIsolation
	}
	exe := p.rt.opts.WorkerCommand
	if exe == "" {
		var err error
		if exe, err = proclimit.Self(); err != nil {
			return nil, nil, fmt.Errorf("cannot find the executable to run a JS worker process: %w", err)
		}
	}
	cmd := exec.Command(exe)
	// GOMAXPROCS=1: the worker's goroutines hand work to each other on
	// one thread, without waking a second one (a wake-up costs 20–90 µs
	// on this VM; the hand-offs of one call cost ~12 µs with two threads,
	// ~1.5 µs with one); it also caps an untrusted provider at one core.
	cmd.Env = []string{workerEnv + "=1", "GOTRACEBACK=single", "GOMAXPROCS=1"}
	// The host's time zone: without TZ (and, confined, without the zone
	// files: landlockThread) a worker's Dates were in UTC while the same
	// provider in-process used the host's local time, so
	// new Date(2020, 0, 1) was another instant once it ran unsigned.
	for _, k := range []string{"TZ", "ZONEINFO"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	if workerFormats != "" {
		cmd.Env = append(cmd.Env, formatsEnv+"="+workerFormats)
	}
	cmd.SysProcAttr = workerProcAttr()
	// Pipes of our own rather than StdinPipe/StdoutPipe: the read end of
	// stdout must be non-blocking for the spinning reader and stays open
	// until the worker is gone (Wait would close a StdoutPipe under a
	// reader).
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	degraded, err := startWorker(cmd, !p.rt.opts.Unconfined)
	if degraded != "" {
		p.rt.warnUnconfined(p.logger, degraded)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, nil, fmt.Errorf("start JS worker process %s: %w", exe, err)
	}
	p.started.Add(1)
	sr, err := pipe.NewReader(outR) // no Begin: read deadlines are lead's
	if err == nil {
		sr.Spin = p.rt.opts.Spin
	}
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, nil, err
	}
	w := &procWorker{
		p: p, cmd: cmd, stdin: inW, out: outR, stdout: bufio.NewReaderSize(sr, 64<<10),
		rfree: make(chan struct{}, 1), codec: abi.MsgPack,
		calls: map[string]*procCall{}, dead: make(chan struct{}),
		hostSlots: hostop.NewSlots(),
	}
	stderrDone := make(chan struct{})
	go w.readStderr(errR, stderrDone)
	go func() {
		err := cmd.Wait()
		// The explanation of a crash is the worker's last words on
		// stderr: wait for them, but not for a process it may have left
		// holding the pipe.
		t := time.NewTimer(stderrLinger)
		select {
		case <-stderrDone:
		case <-t.C:
		}
		t.Stop()
		_ = errR.Close() // read to its end, or given up on
		w.died(err)
	}()
	reg, err := w.handshake()
	if err != nil {
		w.kill()
		<-w.dead
		_ = w.out.Close() // died leaves it open before registration
		if note := w.stderr.fatal(); note != "" {
			err = fmt.Errorf("%w (worker: %s)", err, note)
		}
		return nil, nil, err
	}
	w.mu.Lock()
	w.registered = true
	exited := w.exited
	w.mu.Unlock()
	if exited {
		_ = w.out.Close() // died left it to the handshake
	}
	return w, reg, nil
}

// workerLoadError is the load error a worker answers with (the same text
// as the error of an in-process load).
type workerLoadError struct{ msg string }

func (e *workerLoadError) Error() string { return e.msg }

// handshake reads the worker's hello, answers with the wire format
// (internal/wire), sends the load request in it and reads the
// registration (or the load error) the worker answers with.
func (w *procWorker) handshake() (*abi.ToolRegister, error) {
	limit := w.p.rt.opts.LoadTimeout + procStartSlack
	w.rmu.Lock()
	w.setReadDeadline(time.Now().Add(limit))
	frame, err := abi.ReadFrame(w.stdout, maxWorkerFrame)
	w.rmu.Unlock()
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, fmt.Errorf("the JS worker process sent no hello within %v", limit)
	case err != nil:
		return nil, fmt.Errorf("the JS worker process ended before its hello: %w", err)
	}
	const who = "the JS worker process"
	offered, err := wire.ParseWorkerHello(who, frame)
	if err != nil {
		return nil, err
	}
	format, err := wire.Choose(who, w.p.rt.opts.Wire, offered)
	if err != nil {
		return nil, err
	}
	if w.codec, err = abi.CodecByName(format); err != nil {
		return nil, err
	}
	w.trace = wire.NewTracer(w.p.logger, format)
	w.trace.Frame("in", frame)
	answer := wire.HostHello(format)
	w.trace.Frame("out", answer)
	if err := w.writeRaw(answer); err != nil {
		return nil, fmt.Errorf("answer the JS worker's hello: %w", err)
	}
	if err := w.send(&w.p.req); err != nil {
		return nil, fmt.Errorf("send the bundle to the JS worker: %w", err)
	}
	w.rmu.Lock()
	env, err := w.readEnvelope()
	// What the bundle logs while it loads (console.log at its top) comes
	// before its registration: to the host log (bounded as any of the
	// provider's lines; the read deadline bounds the wait).
	for err == nil && env.Kind == abi.KindLog {
		w.log(env.Log)
		env, err = w.readEnvelope()
	}
	w.rmu.Unlock()
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, fmt.Errorf("the JS worker process did not register within %v", limit)
	case err != nil:
		return nil, fmt.Errorf("the JS worker process ended before it registered: %w", err)
	case env.Kind == abi.KindRegister && env.Register != nil:
		return env.Register, nil
	case env.Kind == abi.KindResult && env.Result != nil && env.Result.Error != nil:
		return nil, &workerLoadError{msg: env.Result.Error.Message}
	}
	return nil, fmt.Errorf("the JS worker process answered the bundle with a %q message", env.Kind)
}

// writeRaw writes one frame holding payload as it is.
func (w *procWorker) writeRaw(payload []byte) error {
	frame := make([]byte, 4+len(payload))
	binary.BigEndian.PutUint32(frame, uint32(len(payload)))
	copy(frame[4:], payload)
	w.wmu.Lock()
	defer w.wmu.Unlock()
	_, err := w.stdin.Write(frame)
	return err
}

// send writes one message (an *abi.Envelope, or the load request) to the
// worker.
func (w *procWorker) send(msg any) error {
	return sendFrame(&w.wmu, w.stdin, w.codec, w.trace, msg)
}

// sendFrame writes msg as one frame (encodeFrame) in codec on out,
// holding mu so the frames of concurrent senders never interleave. Both
// ends of the worker protocol send with it.
func sendFrame(mu *sync.Mutex, out io.Writer, codec abi.Codec, trace *wire.Tracer, msg any) error {
	frame, err := encodeFrame(codec, msg)
	if err != nil {
		return err
	}
	trace.Frame("out", frame[4:])
	mu.Lock()
	defer mu.Unlock()
	_, err = out.Write(frame)
	return err
}

// frameTooLargeError is encodeFrame's error for a message over
// maxWorkerFrame.
type frameTooLargeError struct{ size int }

func (e *frameTooLargeError) Error() string {
	return fmt.Sprintf("message of %d bytes exceeds the frame limit of %d", e.size, maxWorkerFrame)
}

// encodeFrame encodes msg (an *abi.Envelope gets the format version) in
// codec as one frame of the ABI's stream transport, length included, so
// that it goes out in one write (abi.WriteFrame writes the length and the
// payload apart: two system calls, and a reader that wakes up for the
// length alone). Both ends of the worker protocol use it.
func encodeFrame(codec abi.Codec, msg any) ([]byte, error) {
	if env, ok := msg.(*abi.Envelope); ok {
		env.V = abi.FormatVersion
	}
	payload, err := codec.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if len(payload) > maxWorkerFrame {
		return nil, &frameTooLargeError{size: len(payload)}
	}
	frame := make([]byte, 4+len(payload))
	binary.BigEndian.PutUint32(frame, uint32(len(payload)))
	copy(frame[4:], payload)
	return frame, nil
}

func (w *procWorker) readEnvelope() (*abi.Envelope, error) {
	frame, err := abi.ReadFrame(w.stdout, maxWorkerFrame)
	if err != nil {
		return nil, err
	}
	w.trace.Frame("in", frame)
	if err := wire.CheckCost(frame, w.codec.Name(), wire.DecodeBudget); err != nil {
		return nil, fmt.Errorf("the JS worker process: %w", err)
	}
	env := new(abi.Envelope)
	if err := w.codec.Unmarshal(frame, env); err != nil {
		return nil, fmt.Errorf("bad frame from the JS worker process: %w", err)
	}
	return env, nil
}

func (w *procWorker) setReadDeadline(t time.Time) {
	if !t.Equal(w.rdl) {
		_ = w.out.SetReadDeadline(t)
		w.rdl = t
	}
}

// leadResult is why lead returned without the call's result.
type leadResult int

const (
	leadBroken    leadResult = iota // the worker's stdout ended or broke
	leadTimeout                     // the hard deadline passed
	leadCancelled                   // the call's context ended
)

// lead reads the worker's frames (the caller holds rmu) until c has its
// result, the worker breaks, hard passes, or (watch) ctx ends. A poll for
// cancellation happens only between frames, so it never cuts one.
func (w *procWorker) lead(c *procCall, hard time.Time, watch bool) (*abi.ToolResult, leadResult) {
	for {
		if w.stdout.Buffered() == 0 {
			dl := hard
			if watch {
				if t := time.Now().Add(pipe.CancelPoll); t.Before(hard) {
					dl = t
				}
			}
			w.setReadDeadline(dl)
			if _, err := w.stdout.Peek(1); err != nil {
				if !errors.Is(err, os.ErrDeadlineExceeded) {
					return nil, leadBroken
				}
				if !time.Now().Before(hard) {
					return nil, leadTimeout
				}
				if watch && c.ctx.Err() != nil {
					return nil, leadCancelled
				}
				continue
			}
		}
		w.setReadDeadline(hard)
		env, err := w.readEnvelope()
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return nil, leadTimeout
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				w.p.logger.Error("JS worker process: protocol error; killing it", "err", err)
				// The caller kills the worker: its calls fail saying why
				// (a frame over wire.DecodeBudget, a broken one), not
				// just "signal: killed".
				w.mu.Lock()
				w.killedBy = err.Error()
				w.mu.Unlock()
			}
			return nil, leadBroken
		}
		if env.Kind == abi.KindHostCall && !w.hostSlots.TryAcquire() {
			// The host call waits for a slot on a goroutine of its own
			// and the reader reads on: a host call may be a call back into
			// this worker (its provider's own tool), whose result only
			// this reading brings in. A reader that waited here for a
			// slot held by such calls waited for good: concurrent calls
			// fanning out to their own provider's tools all ended in
			// Timeout (TestProcessSelfFanOutNoDeadlock). What waits is
			// bounded by the worker's own bound, hostop.MaxInFlight host
			// calls of a call at once.
			go w.serveHostQueued(env)
			continue
		}
		w.dispatch(env)
		select {
		case r := <-c.done:
			return r, 0
		default:
		}
	}
}

// dispatch delivers one frame from the worker.
func (w *procWorker) dispatch(env *abi.Envelope) {
	switch env.Kind {
	case abi.KindResult:
		c := w.endCall(env.ID)
		if c != nil && env.Result != nil {
			w.answered.Store(true)
			c.done <- env.Result
		}
	case abi.KindHostCall:
		w.mu.Lock()
		c := w.calls[callKey(env.Host)]
		w.mu.Unlock()
		go w.serveHost(c, env.ID, env.Host)
	case abi.KindLog:
		w.log(env.Log)
	default:
		w.p.logger.Warn("JS worker process sent an unexpected message", "kind", env.Kind)
	}
}

// resultOf unpacks a worker's answer.
func resultOf(r *abi.ToolResult) (any, error) {
	if r.Error != nil {
		return nil, r.Error
	}
	return r.Value, nil
}

func callKey(hc *abi.HostCall) string {
	if hc == nil {
		return ""
	}
	return hc.CallID
}

// serveHost answers one host call of call c (nil: unknown call).
func (w *procWorker) serveHost(c *procCall, hid string, hc *abi.HostCall) {
	var res *abi.ToolResult
	if c != nil {
		ctx := c.ctx
		if hc != nil && hc.Op == "call_tool" {
			// Only a nested call can come back to this provider
			// (procNestKey); the other host calls need no context of
			// their own.
			ctx = context.WithValue(ctx, procNestKey{w.p}, true)
		}
		res = hostop.Answer(ctx, c.env, hid, hc, true, maxReadInFrame)
		if te := res.Error; te != nil && te.Code == abi.TooLarge && hc != nil && hc.Op == "space_read" {
			if d, _ := te.Data.(map[string]any); d != nil && d["limit"] == maxReadInFrame {
				// Refused by its size, unread (it was read, hashed and
				// base64ed, then found too large to send).
				res.Error = abi.Errorf(abi.TooLarge, "%s (%v bytes): its answer would be over the frame limit of %d bytes between the host and the JS worker process", hostCallWhat(hc), d["size"], maxWorkerFrame)
			}
		}
		if res.Error != nil && errors.Is(c.ctx.Err(), context.Canceled) {
			// The call's caller cancelled it while the host call ran,
			// which likely ended with it: the worker learns of it first,
			// as an in-process runtime sees its context end before the
			// host call's answer. The leader sends the cancel only at its
			// next poll, after this answer, and the handler's rejection
			// with the nested tool's "context canceled" was the call's
			// error in place of what it awaited
			// (TestCancelDuringHostCallSaysWhy); the leader's cancel then
			// finds the call ended. (A deadline needs nothing: the worker
			// keeps the same one.)
			_ = w.send(&abi.Envelope{Kind: abi.KindCancel, ID: hc.CallID})
		}
	} else {
		res = hostop.Answer(context.Background(), nil, hid, hc, false, 0)
	}
	w.hostSlots.Release()
	err := w.send(&abi.Envelope{Kind: abi.KindHostResult, ID: hid, Result: res})
	var big *frameTooLargeError
	if errors.As(err, &big) {
		// An answer the frame cannot carry (a space_read of an object
		// of 48 MiB and more: base64) is the host call's TooLarge: not
		// sent at all, the tool waited for it until its deadline.
		te := abi.Errorf(abi.TooLarge, "%s: its answer of %d bytes is over the frame limit of %d bytes between the host and the JS worker process", hostCallWhat(hc), big.size, maxWorkerFrame)
		err = w.send(&abi.Envelope{Kind: abi.KindHostResult, ID: hid, Result: &abi.ToolResult{CallID: res.CallID, Error: te}})
	}
	if err != nil {
		w.p.logger.Debug("host_result not delivered to the JS worker", "err", err)
	}
}

// hostCallWhat names host call hc in an error: its operation, for a
// space_read the object and its space, for a space_write the data's size
// and the space.
func hostCallWhat(hc *abi.HostCall) string {
	if hc == nil {
		return "host call"
	}
	args, _ := hc.Args.(map[string]any)
	id, _ := args["id"].(string)
	sp, _ := args["space"].(string)
	switch hc.Op {
	case "space_read":
		if sp == "" {
			return fmt.Sprintf("space_read of object %.80s", id)
		}
		return fmt.Sprintf("space_read of object %.80s in space %.80q", id, sp)
	case "space_write":
		b64, _ := args["data"].(string)
		n := len(b64)/4*3 - (len(b64) - len(strings.TrimRight(b64, "=")))
		return fmt.Sprintf("space_write of %d bytes to space %.80q", n, sp)
	}
	return hc.Op
}

// serveHostQueued serves host call env once a slot is free, unless its
// call ends or the worker dies first.
func (w *procWorker) serveHostQueued(env *abi.Envelope) {
	w.mu.Lock()
	c := w.calls[callKey(env.Host)]
	w.mu.Unlock()
	ctx, hard := context.Background(), time.Time{}
	if c != nil {
		ctx, hard = c.ctx, c.hard
	}
	if err := w.hostSlots.Acquire(ctx, hard, w.dead); err != nil {
		w.refuseHost(env.ID, env.Host, err)
		return
	}
	w.serveHost(c, env.ID, env.Host)
}

// refuseHost answers host call hid, which waited for a slot until its
// call or the worker ended (err), with Unavailable.
func (w *procWorker) refuseHost(hid string, hc *abi.HostCall, err error) {
	res := &abi.ToolResult{Error: abi.Errorf(abi.Unavailable, "host call %s not served: %d host calls of this worker were running and its call ended first (%v)", hid, hostop.MaxInFlight, err)}
	if hc != nil {
		res.CallID = hc.CallID
	}
	if err := w.send(&abi.Envelope{Kind: abi.KindHostResult, ID: hid, Result: res}); err != nil {
		w.p.logger.Debug("host_result not delivered to the JS worker", "err", err)
	}
}

// log writes a worker's log record to the log of the call it names, or
// the provider's.
func (w *procWorker) log(rec *abi.LogRecord) {
	if rec == nil {
		return
	}
	logger := w.p.logger
	ctx := context.Background()
	if rec.CallID != "" {
		w.mu.Lock()
		c := w.calls[rec.CallID]
		w.mu.Unlock()
		if c != nil && c.env != nil {
			if l := c.env.Logger(); l != nil {
				logger, ctx = l, c.ctx
			}
		}
	}
	// Not counted when the log level filters it out, as in-process
	// (TestFilteredLevelNotCounted).
	lv := hostop.Level(rec.Level)
	if !logger.Enabled(ctx, lv) {
		return
	}
	msg, ok := w.p.logs.line(rec.Message)
	if !ok {
		return
	}
	logger.Log(ctx, lv, msg, "source", "js")
}

// call sends a call to the worker and waits for its result, the worker's
// death, or the deadline plus procGrace.
func (w *procWorker) call(ctx context.Context, call *abi.ToolCall, env abi.Env, deadline time.Time, nested bool) (any, error) {
	hard := deadline.Add(procGrace)
	c := &procCall{ctx: ctx, env: env, done: make(chan *abi.ToolResult, 1), hard: hard}
	w.mu.Lock()
	w.seq++
	id := strconv.FormatUint(w.seq, 10)
	w.calls[id] = c
	w.mu.Unlock()
	forget := func() { w.endCall(id) }
	cc := *call
	cc.Deadline = deadline
	if err := w.send(&abi.Envelope{Kind: abi.KindCall, ID: id, Call: &cc, Nested: nested}); err != nil {
		forget()
		var big *frameTooLargeError
		if errors.As(err, &big) {
			// Params over the frame (limits.max_params_bytes may be set
			// above it): nothing was written and the worker is fine; this
			// was ProviderCrashed, after a second waiting for its death.
			return nil, abi.Errorf(abi.TooLarge, "%s: the call, its params included, is %d bytes, over the frame limit of %d bytes between the host and the JS worker process", call.Tool, big.size, maxWorkerFrame)
		}
		select {
		case <-w.dead:
			return nil, w.crashed(call)
		case <-time.After(time.Second):
		}
		return nil, abi.Errorf(abi.ProviderCrashed, "%s: cannot send the call to the JS worker process: %v", call.Tool, err)
	}
	done := ctx.Done()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	cancel := func() {
		done = nil
		_ = w.send(&abi.Envelope{Kind: abi.KindCancel, ID: id})
	}
	for {
		select {
		case r := <-c.done:
			return resultOf(r)
		default:
		}
		if w.rmu.TryLock() {
			r, why := w.lead(c, hard, done != nil)
			w.rmu.Unlock()
			select {
			case w.rfree <- struct{}{}: // wake a waiting caller to read next
			default:
			}
			if r != nil {
				return resultOf(r)
			}
			switch why {
			case leadCancelled:
				// The worker ends the call itself (its context is
				// cancelled too); keep reading for its answer.
				cancel()
				continue
			case leadTimeout:
				forget()
				w.killFor(call)
				return nil, w.timeout(call)
			}
			w.kill()
			<-w.dead
			forget()
			return nil, w.crashed(call)
		}
		if timer == nil {
			timer = time.NewTimer(time.Until(hard))
		}
		select {
		case r := <-c.done:
			return resultOf(r)
		case <-w.rfree:
		case <-w.dead:
			forget()
			return nil, w.crashed(call)
		case <-done:
			cancel()
		case <-timer.C:
			forget()
			w.killFor(call)
			return nil, w.timeout(call)
		}
	}
}

func (w *procWorker) timeout(call *abi.ToolCall) *abi.ToolError {
	return abi.Errorf(abi.Timeout, "%s did not return within its deadline plus %v; its JS worker process was killed", call.Tool, procGrace)
}

// crashed is the error of a call whose worker died.
func (w *procWorker) crashed(call *abi.ToolCall) *abi.ToolError {
	te := *w.deathErr
	te.Message = call.Tool + ": " + te.Message
	return &te
}

func (w *procWorker) alive() bool {
	select {
	case <-w.dead:
		return false
	default:
		return true
	}
}

// killFor kills a worker that has not answered call by its deadline plus
// procGrace, saying so to the other calls it was serving: they said only
// "its JS worker process ended (signal: killed)", as if something outside
// had killed it (TestProcessTimeoutKillSaysWhy).
func (w *procWorker) killFor(call *abi.ToolCall) {
	w.mu.Lock()
	if w.killedBy == "" {
		w.killedBy = fmt.Sprintf("it did not answer a call of %s within its deadline plus %v", call.Tool, procGrace)
	}
	w.mu.Unlock()
	w.kill()
}

func (w *procWorker) kill() {
	if w.cmd.Process != nil {
		_ = w.cmd.Process.Kill()
	}
}

// endCall takes call id out of the calls in flight and returns it (nil
// if it was not there). The last one to end after shutdown closes stdin.
func (w *procWorker) endCall(id string) *procCall {
	w.mu.Lock()
	c := w.calls[id]
	delete(w.calls, id)
	last := c != nil && len(w.calls) == 0 && w.closing.Load()
	w.mu.Unlock()
	if last {
		_ = w.stdin.Close()
	}
	return c
}

// shutdown closes the worker's stdin, which ends it, and kills it after
// grace. With calls in flight, stdin is closed when the last of them ends
// (endCall): it also carries the answers to their host calls, and a call
// that went on to ctx.callTool or ctx.spaces.* after a close (a hot
// reload) waited for an answer that could not come until the grace ran
// out and the worker was killed (TestCloseLetsCallsInFlightUseTheHost).
func (w *procWorker) shutdown(grace time.Duration) {
	w.mu.Lock()
	w.closing.Store(true)
	busy := len(w.calls) > 0
	w.mu.Unlock()
	if !busy || grace <= 0 {
		_ = w.stdin.Close()
	} else {
		// The worker closes its provider, as an in-process one is
		// closed: calls waiting there for a busy runtime are refused
		// (Unavailable) rather than run on the removed provider once
		// one is free (TestCloseRefusesCallsQueuedInWorker). Sent on a
		// goroutine: Close must not wait on a worker that stopped
		// reading its stdin (the kill after grace ends the write).
		go func() { _ = w.send(&abi.Envelope{Kind: kindClose}) }()
	}
	if grace <= 0 {
		w.stopped.Store(true)
		w.kill()
		return
	}
	go func() {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-w.dead:
		case <-t.C:
			w.stopped.Store(true)
			w.kill()
		}
	}()
}

// died records why the process ended and wakes every call waiting on it.
func (w *procWorker) died(err error) {
	why := "exited"
	if err != nil {
		why = err.Error()
	}
	msg := "its JS worker process ended (" + why + ")"
	w.mu.Lock()
	killedBy, registered := w.killedBy, w.registered
	w.exited = true
	w.mu.Unlock()
	if killedBy != "" {
		msg = "its JS worker process was killed: " + strings.TrimPrefix(killedBy, "the JS worker process: ")
	} else if note := w.stderr.fatal(); note != "" {
		msg += ": " + note
		if isOOM(note) {
			msg += fmt.Sprintf(" — the worker's memory limit is %d MiB (runtimes.js.process_memory_mib)", w.p.rt.opts.ProcessMemory>>20)
		}
	}
	w.deathErr = &abi.ToolError{Code: abi.ProviderCrashed, Message: msg}
	if w.closing.Load() && killedBy == "" && (err == nil || w.stopped.Load()) {
		// Not a crash: the host closed the provider (removed, replaced by
		// a reload, or shutting down) and the call outlived the grace.
		// A worker that died of its own accord meanwhile (out of memory)
		// crashed: that was Unavailable, a retryable code, without the
		// reason (TestProcessCrashDuringCloseIsACrash).
		w.deathErr = &abi.ToolError{Code: abi.Unavailable, Message: "its provider was closed during the call (removed, replaced by a reload, or the host shutting down), and its JS worker process was stopped (" + why + ")"}
	}
	w.diedAt = time.Now()
	close(w.dead)
	_ = w.stdin.Close()
	if registered {
		_ = w.out.Close() // a reader still in it gets an error: the worker is gone
	}
	// Before it registered, the handshake is reading (with a deadline):
	// closing the pipe under it lost the load error the worker wrote just
	// before it exited ("use of closed file"); it drains the pipe to EOF,
	// and start closes it.
	if err != nil && registered {
		// Before it registered, the load fails saying why (start).
		args := []any{"pid", w.cmd.Process.Pid, "err", err}
		if note := w.stderr.fatal(); note != "" {
			args = append(args, "note", note)
		}
		w.p.logger.Warn("JS worker process ended", args...)
	}
}

func isOOM(s string) bool {
	for _, sign := range []string{"out of memory", "failed to allocate", "cannot allocate memory", "pthread_create failed"} {
		if strings.Contains(s, sign) {
			return true
		}
	}
	return false
}

// readStderr logs the worker's stderr and keeps what explains a crash.
func (w *procWorker) readStderr(r io.Reader, done chan struct{}) {
	defer close(done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	logged := 0
	for sc.Scan() {
		line := sc.Text()
		w.stderr.add(line)
		if logged < 50 {
			logged++
			w.p.logger.Warn("JS worker stderr", "pid", w.cmd.Process.Pid, "line", line)
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// stderrTail keeps the first line that explains a crash (a Go fatal
// error or panic, a thread the runtime could not start, or the race
// detector's allocation failure; out of memory shows as any of these).
type stderrTail struct {
	mu   sync.Mutex
	note string
}

func (t *stderrTail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.note != "" {
		return
	}
	if strings.HasPrefix(line, "fatal error:") || strings.HasPrefix(line, "panic:") ||
		strings.HasPrefix(line, "runtime: out of memory") || strings.HasPrefix(line, "runtime/cgo: pthread_create failed") ||
		(strings.HasPrefix(line, "==") && strings.Contains(line, "ERROR:")) {
		t.note = line
	}
}

func (t *stderrTail) fatal() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.note
}
