package python

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/hostop"
	"github.com/aios-host/aios-host/internal/linebudget"
	"github.com/aios-host/aios-host/internal/wire"
)

// bootstrap is the -c program of every worker: argv[1] is the SDK folder
// followed by the interpreter's normal sys.path (newline-separated), argv[2]
// the tool file, argv[3] the start gate fd. Workers start with -S (site.py
// and its .pth files cost tens of milliseconds); the probe's sys.path puts
// the site-packages folders back.
const bootstrap = "import sys;p=sys.argv[1].split(chr(10));sys.path[:0]=p[:1];sys.path+=[x for x in p[1:] if x not in sys.path];from aios_sdk._worker import main;main()"

// gateFd is the fd number of the start gate in the worker; brokerFd that
// of its end of the network broker socket (when it has one).
const (
	gateFd   = 3
	brokerFd = 4
	// noNetworkArg in the worker's broker argument (argv 5) says its
	// sandbox gives it no network at all (no Network capability held).
	noNetworkArg = "-2"
)

// stderrTail is how much of a worker's stderr is kept for crash reports.
const stderrTail = 2048

// stderrLinesPerSecond caps the stderr lines of one worker that are logged;
// logLinesPerSecond its ctx.log lines (a budget of their own).
const (
	stderrLinesPerSecond = 100
	logLinesPerSecond    = 100
)

// maxLogLine is the longest stderr or ctx.log line logged; the rest of a
// longer line is dropped and its length noted.
const maxLogLine = 64 << 10

// worker is one python process serving one call at a time.
type worker struct {
	p *Provider
	// extra: started beyond the pool for nested calls of the provider's
	// own tools (Provider.acquire); kept as a spare between them, stopped
	// after spareLinger without one.
	extra bool
	pid   int
	ps    *os.Process
	cg    *workerCgroup // nil: none
	in    *os.File      // host → worker
	out   *os.File      // worker → host
	// The worker → host pipe is read only by the goroutine of the call in
	// flight (and by startWorker for the registration): no reader goroutine
	// and no hand-off per call.
	pr *pipeReader
	br *bufio.Reader

	// Adaptive spinning (see pipe.go): spin is the configured window,
	// spinSkip the calls left that do not spin, spinMisses the spins in a
	// row that ran out, spinWarm whether the last call's spin caught the
	// result. Used by the call in flight only.
	spin       time.Duration
	spinSkip   int
	spinMisses int
	spinWarm   bool

	wmu  sync.Mutex
	wbuf []byte

	// hostSlots bounds the host calls running at once (hostop.MaxInFlight;
	// the call's reader waits for a slot).
	hostSlots hostop.Slots

	// mp is true when the hello exchange chose MessagePack (else JSON);
	// trace logs every frame at debug level (nil unless debug logging
	// was on when the worker started).
	mp    bool
	trace *wire.Tracer

	// broker is the host's end of the socket pair over which connected
	// sockets are passed to a worker of a provider holding Network(host
	// patterns) (nil otherwise); brokerMu keeps each socket and its
	// host_result in the same order on the two channels.
	broker   *os.File
	brokerMu sync.Mutex

	// cpuLimit is the worker's RLIMIT_CPU (0: none), which counts its
	// whole life, and the limit of its tree's CPU (watchCPU); cpuCheck
	// when worn next reads the CPU the tree has used.
	cpuLimit time.Duration
	cpuCheck time.Time
	// lines are where the tool file declares its provider and tools.
	lines regLines
	// memLimit is its RLIMIT_AS in bytes (0: none).
	memLimit uint64

	mu        sync.Mutex
	cur       *inflight
	killedFor string // why the host killed it ("" if it died by itself)
	stopping  bool   // stop was asked: its end is not a crash
	reading   bool   // a call is reading out (waitLoop must not close it)
	exited    bool   // the process was reaped

	dead     chan struct{} // closed when the process is reaped
	deathMsg string        // set before dead is closed

	errMu   sync.Mutex
	errTail []byte
	errSum  int64 // bytes ever added to errTail
	errDone chan struct{}

	// At most stderrLinesPerSecond stderr lines and logLinesPerSecond
	// ctx.log lines a second reach the host log; the rest are counted and
	// reported within a second.
	errBudget, logBudget *linebudget.Budget

	seq atomic.Uint64
}

// inflight is the call a worker is serving.
type inflight struct {
	id  string
	ctx context.Context
	env abi.Env

	// conns are the connections brokered for the call (netbroker.go),
	// the host's copies: ended when the call ends.
	connMu sync.Mutex
	conns  []*net.TCPConn
	ended  bool

	// hostOps counts the host calls being served for the call by name
	// (call_tool("t"), space_read): a timeout or cancel names them.
	hostMu  sync.Mutex
	hostOps map[string]int
}

// hostOpName names hc for a message: call_tool("tool") (cut at 64
// characters), else its op.
func hostOpName(hc *abi.HostCall) string {
	if hc.Op == "call_tool" {
		if args, _ := hc.Args.(map[string]any); args != nil {
			if t, ok := args["tool"].(string); ok {
				return fmt.Sprintf("call_tool(%.64q)", t)
			}
		}
	}
	return fmt.Sprintf("%.64s", hc.Op)
}

// hostBegin and hostEnd count a host call being served for c.
func (c *inflight) hostBegin(name string) {
	c.hostMu.Lock()
	if c.hostOps == nil {
		c.hostOps = map[string]int{}
	}
	c.hostOps[name]++
	c.hostMu.Unlock()
}

func (c *inflight) hostEnd(name string) {
	c.hostMu.Lock()
	c.hostOps[name]--
	c.hostMu.Unlock()
}

// pendingOps is " while it awaited call_tool("t")" when host calls are
// being served for c, else "".
func (c *inflight) pendingOps() string {
	if c == nil {
		return ""
	}
	c.hostMu.Lock()
	defer c.hostMu.Unlock()
	var names []string
	for name, k := range c.hostOps {
		if k == 1 {
			names = append(names, name)
		} else if k > 1 {
			names = append(names, fmt.Sprintf("%d× %s", k, name))
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	if len(names) > 8 {
		names = append(names[:8], fmt.Sprintf("%d more", len(names)-8))
	}
	return " while it awaited " + strings.Join(names, ", ")
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
	childFiles := []*os.File{inR, outW, errW, gateR}
	var broker *os.File
	if len(p.netHosts) > 0 {
		host, child, err := socketPair()
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("python worker network broker: %v", err)
		}
		broker = host
		childFiles = append(childFiles, child)
	}

	cfg := p.rt.cfg
	spec := spawnSpec{
		argv: p.argv(),
		// MALLOC_ARENA_MAX: glibc gives each thread that allocates an
		// arena reserving 64 MiB of address space, which RLIMIT_AS
		// (memory_mb) counts: under 512 MiB a tool started about a dozen
		// threads (TestThreadsNotBoundByMallocArenas).
		env:         []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "HOME=/nonexistent", "MALLOC_ARENA_MAX=2"},
		dir:         p.dir,
		files:       childFiles,
		read:        p.readPaths(),
		network:     p.network,
		layers:      p.rt.Layers(),
		memoryBytes: uint64(cfg.MemoryMB) << 20,
		cpuSeconds:  uint64(cfg.CPUSeconds),
		tasks:       cfg.MaxProcesses,
		cpus:        cfg.CPUs,
	}
	ps, err := spawn(spec)
	for _, f := range childFiles {
		_ = f.Close()
	}
	if err != nil {
		for _, f := range []*os.File{inW, outR, errR, gateW, broker} {
			if f != nil {
				_ = f.Close()
			}
		}
		return nil, nil, fmt.Errorf("starting %s for %s: %v", p.ip.exe, p.path, err)
	}
	w := &worker{
		p: p, pid: ps.Pid, ps: ps, in: inW, out: outR,
		broker:  broker,
		spin:    cfg.Spin,
		dead:    make(chan struct{}),
		errDone: make(chan struct{}),

		hostSlots: hostop.NewSlots(),
	}
	if l := p.rt.Layers(); !l.Disabled && l.Rlimits && cfg.CPUSeconds > 0 {
		w.cpuLimit = time.Duration(cfg.CPUSeconds) * time.Second
	}
	if l := p.rt.Layers(); !l.Disabled && l.Rlimits && cfg.MemoryMB > 0 {
		w.memLimit = uint64(cfg.MemoryMB) << 20
	}
	pid := ps.Pid
	w.errBudget = linebudget.New(stderrLinesPerSecond, func(n int) {
		p.log.Warn("python stderr lines suppressed", "pid", pid, "lines", n, "limit", "100 lines a second per worker")
	})
	w.logBudget = linebudget.New(logLinesPerSecond, func(n int) {
		p.log.Warn("python ctx.log lines suppressed", "pid", pid, "lines", n, "limit", "100 lines a second per worker")
	})
	go w.readStderr(errR)
	if w.pr, err = newPipeReader(outR); err != nil {
		_ = gateW.Close()
		w.abort()
		return nil, nil, fmt.Errorf("python worker pipe: %v", err)
	}
	w.br = bufio.NewReaderSize(w.pr, 64<<10)
	if err := limit(ps.Pid, spec); err != nil {
		_ = gateW.Close()
		w.abort()
		return nil, nil, err
	}
	// Into its control group while it waits at the gate: nothing it runs
	// is outside.
	if w.cg, err = newCgroup(spec); err == nil && w.cg != nil {
		err = w.cg.add(ps.Pid)
	}
	if err != nil {
		_ = gateW.Close()
		w.abort()
		return nil, nil, fmt.Errorf("python worker for %s: %v", p.path, err)
	}
	// The pins, then the gate's end: let the worker import the tool file.
	if err := p.sendPins(gateW, cfg.StartupTimeout); err != nil {
		_ = gateW.Close()
		w.abort()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, nil, fmt.Errorf("%s: the python worker did not take its pins within %v (runtimes.python.startup_timeout; raise it on a slow machine)%s", p.path, cfg.StartupTimeout, w.stderrNote())
		}
		return nil, nil, fmt.Errorf("%s: sending the python worker its pins: %v%s", p.path, err, w.stderrNote())
	}
	_ = gateW.Close()

	reg, err := w.handshake(ctx, cfg.StartupTimeout)
	if err != nil {
		w.abort()
		return nil, nil, err
	}
	p.rt.live.Add(1)
	go w.waitLoop()
	if _, ok := w.cg.cpuUsed(); ok && w.cpuLimit > 0 {
		go w.watchCPU()
	}
	return w, reg, nil
}

// argv is the worker's command line.
func (p *Provider) argv() []string {
	args := []string{p.ip.exe, "-I", "-B", "-X", "utf8"}
	if !p.rt.cfg.Site {
		args = append(args, "-S")
	}
	paths := strings.Join(append([]string{p.ip.sdkDir}, p.ip.sysPath...), "\n")
	broker := "-1"
	if len(p.netHosts) > 0 {
		broker = strconv.Itoa(brokerFd)
	} else if l := p.rt.Layers(); !p.network && !l.Disabled && (l.Seccomp || l.NetNS || l.Landlock >= 4) {
		// No network at all: the SDK says so (and which capability to ask
		// for) where a tool connects, rather than leaving it "Temporary
		// failure in name resolution" or a bare EACCES.
		broker = noNetworkArg
	}
	return append(args, "-c", bootstrap, paths, p.path, strconv.Itoa(gateFd), strconv.FormatInt(p.rt.cfg.Spin.Microseconds(), 10), broker, p.msgpackArg())
}

// msgpackArg tells the worker where its msgpack module is (argv[6]): ""
// none (it offers json only), "import" with its sys.path, else the
// package's folder, imported from there alone.
func (p *Provider) msgpackArg() string {
	switch {
	case p.ip.msgpack == "" || p.rt.noMsgpack:
		return ""
	case p.ip.msgpackOnPath:
		return "import"
	}
	return p.ip.msgpack
}

// abort kills a worker that never got its reader loop and reaps it.
func (w *worker) abort() {
	w.killAll()
	_ = w.in.Close()
	_ = w.out.Close()
	if w.broker != nil {
		_ = w.broker.Close()
	}
	_, _ = w.ps.Wait()
	w.cg.destroy()
	close(w.dead)
}

// killAll kills the worker's process group and every process of its
// control group (those that left the group).
func (w *worker) killAll() {
	killGroup(w.pid)
	w.cg.kill()
}

// handshake reads the worker's hello, answers with the wire format
// (internal/wire) and reads the registration, or a load error, in it.
func (w *worker) handshake(ctx context.Context, timeout time.Duration) (*abi.ToolRegister, error) {
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = w.out.SetReadDeadline(deadline)
	defer func() { _ = w.out.SetReadDeadline(time.Time{}) }()
	// A cancelled load (discovery closing at shutdown) stops waiting at
	// once rather than at the startup timeout.
	defer context.AfterFunc(ctx, func() { _ = w.out.SetReadDeadline(time.Now()) })()
	frame, err := abi.ReadFrame(w.br, abi.DefaultMaxFrame)
	if err != nil {
		return nil, w.startError(ctx, err, timeout)
	}
	const who = "the python worker"
	offered, err := wire.ParseWorkerHello(who, frame)
	if err == nil {
		var format string
		if format, err = wire.Choose(who, w.p.rt.cfg.Wire, offered); err == nil {
			w.mp = format == wire.MsgPack
			w.trace = wire.NewTracer(w.p.log.With("pid", w.pid), format)
			w.trace.Frame("in", frame)
			answer := wire.HostHello(format)
			w.trace.Frame("out", answer)
			err = w.writeRaw(answer)
		}
	}
	if err != nil {
		w.killAll()
		return nil, fmt.Errorf("%s: %v%s", w.p.path, err, w.stderrNote())
	}
	env, frame, err := w.readEnvelopeFrame()
	if err != nil {
		return nil, w.startError(ctx, err, timeout)
	}
	switch {
	case env.Kind == abi.KindRegister && env.Register != nil:
		// The lines the SDK sends beside the registration (none from an
		// older SDK), for checkRegister's errors.
		var lines struct {
			Lines regLines `json:"lines" msgpack:"lines"`
		}
		if w.mp {
			_ = abi.MsgPack.Unmarshal(frame, &lines)
		} else {
			_ = json.Unmarshal(frame, &lines)
		}
		w.lines = lines.Lines
		return env.Register, nil
	case env.Kind == abi.KindLog && env.Log != nil:
		w.waitExit()
		return nil, errors.New(env.Log.Message)
	}
	return nil, fmt.Errorf("%s: the python worker sent %q before registering", w.p.path, env.Kind)
}

// regLines are the lines of the tool file that declare the provider
// (@Agent(...) or provider(...)) and each tool (its def, by name), as the
// SDK sends them beside its registration; 0 or missing: unknown.
type regLines struct {
	Provider int            `json:"provider" msgpack:"provider"`
	Tools    map[string]int `json:"tools" msgpack:"tools"`
}

// ctxEnded is ctx.Err(), or context.DeadlineExceeded once ctx's deadline
// has passed: a read given that deadline ends before the context's timer
// runs, while its Err is still nil, and a start cut short by its call's
// deadline was blamed on runtimes.python.startup_timeout.
func ctxEnded(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

// startError words a failed read of the worker's first frames.
func (w *worker) startError(ctx context.Context, err error, timeout time.Duration) error {
	if cerr := ctxEnded(ctx); errors.Is(err, os.ErrDeadlineExceeded) && cerr != nil {
		w.killAll()
		return fmt.Errorf("%s: the python worker's start was cancelled: %w", w.p.path, cerr)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		at := ""
		if l := w.stackLine(time.Second); l != "" {
			at = "its import was at " + l + "; "
		}
		w.killAll()
		return fmt.Errorf("%s: the python worker did not register within %v (runtimes.python.startup_timeout; %sa long-running import or a loop at module level?)%s", w.p.path, timeout, at, w.stderrNote())
	}
	var fe *abi.FrameTooLargeError
	if errors.As(err, &fe) {
		w.killAll()
		return fmt.Errorf("%s: registering: %s", w.p.path, frameError(fe))
	}
	var pe *protocolError
	var ve *valueError
	if errors.As(err, &pe) || errors.As(err, &ve) {
		w.killAll()
		return fmt.Errorf("%s: registering: %v%s", w.p.path, err, w.stderrNote())
	}
	state := w.waitExit()
	note := w.stderrNote()
	return fmt.Errorf("%s: the python worker exited before registering (%s%s)%s", w.p.path, state, w.nativeCrash(state, note), note)
}

// writeRaw writes payload as one frame.
func (w *worker) writeRaw(payload []byte) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.wbuf = append(w.wbuf[:0], 0, 0, 0, 0)
	binary.BigEndian.PutUint32(w.wbuf, uint32(len(payload)))
	w.wbuf = append(w.wbuf, payload...)
	_, err := w.in.Write(w.wbuf)
	return err
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
		w.killAll()
		return <-done
	}
}

func (w *worker) readEnvelope() (*abi.Envelope, error) {
	env, _, err := w.readEnvelopeFrame()
	return env, err
}

// readEnvelopeFrame is readEnvelope, also giving the frame it read.
func (w *worker) readEnvelopeFrame() (*abi.Envelope, []byte, error) {
	frame, err := abi.ReadFrame(w.br, abi.DefaultMaxFrame)
	if err != nil {
		return nil, nil, err
	}
	env, err := w.decodeEnvelope(frame)
	return env, frame, err
}

// decodeEnvelope decodes one frame of the worker.
func (w *worker) decodeEnvelope(frame []byte) (*abi.Envelope, error) {
	w.trace.Frame("in", frame)
	format := "json"
	if w.mp {
		format = "msgpack"
	}
	if err := wire.CheckCost(frame, format, wire.DecodeBudget); err != nil {
		return nil, &protocolError{"the worker's " + err.Error()}
	}
	if w.mp {
		return decodeMsgpackFrame(frame)
	}
	if env, ok := decodeResultFrame(frame); ok {
		return env, nil
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

// frameError words an oversized frame of the worker for the caller.
func frameError(fe *abi.FrameTooLargeError) string {
	return fmt.Sprintf("the python worker wrote a frame of %d bytes, above the frame limit of %d bytes (64 MiB)", fe.Size, fe.Max)
}

// readStderr logs the worker's stderr (tool print()s, tracebacks) line by
// line and keeps the tail for crash reports. At most stderrLinesPerSecond
// lines a second reach the log (errBudget); a line longer than maxLogLine
// is cut there.
func (w *worker) readStderr(r *os.File) {
	defer close(w.errDone)
	defer r.Close()
	defer w.errBudget.Flush()
	br := bufio.NewReaderSize(r, 4096)
	var long []byte
	cut := 0 // bytes of the current line dropped past maxLogLine
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if room := maxLogLine - len(long); room > 0 {
				long = append(long, chunk[:min(len(chunk), room)]...)
				cut += len(chunk) - min(len(chunk), room)
			} else {
				cut += len(chunk)
			}
			continue
		}
		if len(chunk) == 0 && len(long) == 0 && cut == 0 {
			return // EOF (or a read error) at a line boundary
		}
		if err == nil {
			chunk = chunk[:len(chunk)-1] // the newline
		}
		line := chunk
		if len(long) > 0 || cut > 0 {
			n := min(len(chunk), max(maxLogLine-len(long), 0))
			long = append(long, chunk[:n]...)
			cut += len(chunk) - n
			line = long
		}
		w.stderrLine(strings.TrimSuffix(string(line), "\r"), cut)
		long, cut = long[:0], 0
		if err != nil {
			return
		}
	}
}

// stderrLine keeps one stderr line in the tail and logs it if the budget
// allows; cut is how many bytes past maxLogLine were dropped.
func (w *worker) stderrLine(line string, cut int) {
	w.errMu.Lock()
	w.errTail = append(w.errTail, line...)
	w.errTail = append(w.errTail, '\n')
	w.errSum += int64(len(line)) + 1
	if len(w.errTail) > stderrTail {
		w.errTail = append(w.errTail[:0], w.errTail[len(w.errTail)-stderrTail:]...)
	}
	w.errMu.Unlock()
	// A line the log level filters out is never shown: counted, it spent
	// the budget of the lines that are (TestFilteredLevelNotCounted).
	if !w.p.log.Enabled(context.Background(), slog.LevelInfo) || !w.errBudget.Allow() {
		return
	}
	args := []any{"pid", w.pid, "line", line}
	if id := w.p.id.Load(); id != nil {
		// Whose print it is, as ctx.log lines and WASM guests' output
		// say (TestStderrTaggedWithProvider).
		args = append(args, "provider", *id)
	}
	if cut > 0 {
		args = append(args, "truncated_bytes", cut)
	}
	w.p.log.Info("python stderr", args...)
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

// nativeCrash is " (native code called at file.py:LINE crashed: …)" when
// a fatal signal (state) struck the worker in native code called from the
// tool's folder, by the stack Python wrote on stderr (its note), else "".
// It said only "signal: segmentation fault", at a call
// (TestNativeCrashNamesLine) or at import (TestNativeCrashAtImportNamesLine).
func (w *worker) nativeCrash(state, stderr string) string {
	if !strings.Contains(state, "signal: ") {
		return ""
	}
	at := nativeCrashAt(stderr, w.p.dir)
	if at == "" {
		return ""
	}
	return " (native code called at " + at + " crashed: a C extension's or ctypes' fault, Python's stack is on stderr)"
}

// stackLine asks a worker whose import outlasted the startup timeout, or
// whose call its deadline, for its stack (SIGUSR2: faulthandler, registered
// by the SDK) and returns the innermost frame of the tool's folder,
// "file.py:LINE", or "" when the stack names none within wait (a tool
// blocking the signal, a stack in a library). They named no line
// (TestStartupTimeoutNamesLine, TestDeadlineNamesLine).
func (w *worker) stackLine(wait time.Duration) string {
	select {
	case <-w.dead:
		return ""
	default:
	}
	// Only what stderr holds after the signal: a stack the tool wrote
	// before (faulthandler.dump_traceback) is not where it is now
	// (TestDeadlineLineNotFromOldStack).
	w.errMu.Lock()
	before := w.errSum
	w.errMu.Unlock()
	if askStack(w.pid) != nil {
		return ""
	}
	for end := time.Now().Add(wait); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		w.errMu.Lock()
		tail := w.errTail[len(w.errTail)-int(min(w.errSum-before, int64(len(w.errTail)))):]
		at := stackAt(string(tail), "(most recent call first):", w.p.dir)
		w.errMu.Unlock()
		if at != "" {
			return at
		}
	}
	return ""
}

// nativeCrashAt finds, in the stack Python's faulthandler wrote on stderr
// as a fatal signal struck the worker, the innermost frame of a file in dir
// (the provider's folder): "file.py:LINE", the tool's line that called into
// the native code that crashed. "" when there is none.
func nativeCrashAt(stderr, dir string) string {
	return stackAt(stderr, "Fatal Python error: ", dir)
}

// stackAt is the innermost frame of a file in dir, "file.py:LINE", of the
// faulthandler stack that follows the last mark in stderr, or "".
func stackAt(stderr, mark, dir string) string {
	i := strings.LastIndex(stderr, mark)
	if i < 0 {
		return ""
	}
	for _, ln := range strings.Split(stderr[i:], "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(ln), `File "`)
		if !ok {
			continue
		}
		file, rest, ok := strings.Cut(rest, `", line `)
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, " ")
		if strings.HasPrefix(file, dir+string(filepath.Separator)) {
			return filepath.Base(file) + ":" + n
		}
	}
	return ""
}

// waitLoop reaps the worker when its process ends (by itself, killed by
// the host, or killed from outside while idle) and records how it ended.
func (w *worker) waitLoop() {
	defer w.p.rt.live.Add(-1)
	st, err := w.ps.Wait()
	// Before the group goes: did its OOM killer end the worker?
	oom, oomKnown := w.cg.oomKills()
	// Children of the worker may hold its pipes: the whole tree goes.
	w.killAll()
	w.cg.destroy()
	state := ""
	if err != nil {
		state = err.Error()
	} else {
		state = st.String()
	}
	w.mu.Lock()
	why := w.killedFor
	w.mu.Unlock()
	msg := fmt.Sprintf("python worker (pid %d) of %s exited: %s", w.pid, filepath.Base(w.p.path), state)
	if why != "" {
		msg = fmt.Sprintf("python worker (pid %d) of %s was killed: %s", w.pid, filepath.Base(w.p.path), why)
	} else if strings.Contains(state, "signal: killed") || strings.Contains(state, "cpu time") {
		if w.cpuLimit > 0 && st != nil && st.UserTime()+st.SystemTime() >= w.cpuLimit {
			// The host knows: it was a guess (TestCPULimitKillNamed).
			msg += fmt.Sprintf(" (its CPU limit was reached: %s of CPU, runtimes.python.cpu_seconds)", w.cpuLimit)
		} else if oomKnown && oom > 0 {
			// The control group says so; it was a guess, as was the
			// next (TestKillCauseNotGuessed).
			if mb := w.p.rt.cfg.MemoryMB; mb > 0 {
				msg += fmt.Sprintf(" (out of memory: its tree reached runtimes.python.memory_mb (%d MiB), or the machine ran out, and the kernel's OOM killer ended it)", mb)
			} else {
				msg += " (out of memory: the machine ran out and the kernel's OOM killer ended it)"
			}
		} else if oomKnown && strings.Contains(state, "signal: killed") {
			msg += " (a SIGKILL from outside the host: neither its memory limit nor its CPU limit was reached)"
		} else {
			msg += " (killed: the memory or CPU limit may have been reached)"
		}
	} else if st != nil && st.ExitCode() == 120 {
		// Python's own status when it cannot flush stdout or stderr as it
		// exits: it replaces the tool's status and its traceback goes
		// nowhere (TestExitStatus120Explained).
		msg += " (Python's status when it cannot flush stdout or stderr as it exits: the tool closed or broke file descriptor 1 or 2, and the status it exited with, and any traceback, were lost)"
	}
	note := w.stderrNote()
	w.deathMsg = msg + w.nativeCrash(state, note) + note
	w.logBudget.Flush()
	_ = w.in.Close()
	if w.broker != nil {
		w.brokerMu.Lock()
		_ = w.broker.Close()
		w.brokerMu.Unlock()
	}
	w.mu.Lock()
	w.exited = true
	reading, stopping := w.reading, w.stopping
	w.mu.Unlock()
	if !reading {
		_ = w.out.Close()
	} // else the call closes it when it stops reading
	close(w.dead)
	if !reading && !stopping && why == "" && w.p.serves(w) {
		// No call reports it: a thread of a tool exiting after the call,
		// an alarm it set, a kill from outside. It was replaced at the
		// next call without a word (TestIdleWorkerDeathLogged).
		w.p.log.Warn("python worker ended while idle", "pid", w.pid, "err", w.deathMsg)
		w.p.lostIdle(w)
	}
}

// worn reports, after a call, whether the worker has used half of its CPU
// limit. RLIMIT_CPU counts a worker's whole life: a worker that served
// enough calls was killed in the middle of the next one, whichever it was
// (TestCPULimitSparesInnocentCalls). The CPU is read at most every
// eighth of the limit (and every second), so a worker found under half
// has used at most five eighths of it (one core, the default cpus) when
// its next call starts.
func (w *worker) worn(now time.Time) bool {
	if w.cpuLimit == 0 || now.Before(w.cpuCheck) {
		return false
	}
	w.cpuCheck = now.Add(min(w.cpuLimit/8, time.Second))
	used, ok := w.treeCPU()
	return ok && used >= w.cpuLimit/2
}

// treeCPU is the CPU time the worker's tree has used: its control
// group's count, with every process a tool forked, else the worker's own.
func (w *worker) treeCPU() (time.Duration, bool) {
	if used, ok := w.cg.cpuUsed(); ok {
		return used, true
	}
	return processCPU(w.pid)
}

// watchCPU ends the worker when its tree has used its CPU limit, also
// between calls. RLIMIT_CPU counts each process alone, from nothing at
// its fork: a tool that left a chain of processes behind, each burning
// less than the limit and forking the next, burnt CPU without end while
// its worker stayed idle (TestForkChainCPUBounded). The worker's own
// RLIMIT_CPU still ends a worker that burns the limit itself.
func (w *worker) watchCPU() {
	tick := time.NewTicker(min(w.cpuLimit/8, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-w.dead:
			return
		case <-tick.C:
		}
		used, ok := w.cg.cpuUsed()
		if !ok || used < w.cpuLimit {
			continue
		}
		if own, ok := processCPU(w.pid); ok && own >= w.cpuLimit {
			continue // its RLIMIT_CPU ends it
		}
		why := fmt.Sprintf("its CPU limit was reached by its processes together: %s of CPU, runtimes.python.cpu_seconds, which counts the processes a tool forks too", w.cpuLimit)
		w.p.log.Warn("python worker killed", "pid", w.pid, "why", why)
		w.kill(why)
		return
	}
}

// memoryHeld reports, after a call that failed with err, whether it was a
// MemoryError (the SDK's "MemoryError in tool …") while the worker still
// holds half of its memory limit: memory kept from call to call (a cache
// that grows), so that every later call that allocates would fail too
// (TestMemoryErrorWithHeldMemoryReplaces). After one oversized
// allocation the memory is free again and the worker lives on.
func (w *worker) memoryHeld(err error) bool {
	te, ok := err.(*abi.ToolError)
	if !ok || w.memLimit == 0 || te.Code != abi.ProviderError || !strings.HasPrefix(te.Message, "MemoryError in tool ") {
		return false
	}
	b, rerr := os.ReadFile("/proc/" + strconv.Itoa(w.pid) + "/statm")
	if rerr != nil {
		return false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return false
	}
	pages, perr := strconv.ParseUint(f[0], 10, 64) // the size of its address space, which RLIMIT_AS bounds
	return perr == nil && pages*uint64(os.Getpagesize()) >= w.memLimit/2
}

// tasksHeld says whether err is a tool's failure to start a thread or a
// process because the worker's task limit (runtimes.python.max_processes)
// or its address space (a thread's stack past memory_mb) had no room: the
// threads and processes the call started may outlive it (a daemon thread
// waiting on an event, a forked child), holding that room, and every later
// call of the worker that starts one failed the same way
// (TestTaskLimitReachedWorkerReplaced). The worker is replaced after it.
func tasksHeld(err error) bool {
	te, ok := err.(*abi.ToolError)
	if !ok || te.Code != abi.ProviderError {
		return false
	}
	return strings.Contains(te.Message, "(runtimes.python.max_processes;") ||
		strings.Contains(te.Message, "runtimes.python.memory_mb) has no room for another thread")
}

// processCPU is the CPU time (user and system, all threads) process pid
// has used, from /proc/PID/stat; ok is false where it cannot be read.
func processCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The fields after the command name (in parentheses, which may hold
	// anything): state is the 3rd field of the line, utime the 14th,
	// stime the 15th, in clock ticks (USER_HZ, 100 on Linux).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * (time.Second / 100), true
}

// kill kills the worker's process group, remembering why.
func (w *worker) kill(why string) {
	w.mu.Lock()
	if w.killedFor == "" {
		w.killedFor = why
	}
	w.mu.Unlock()
	w.killAll()
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
	w.logLine(rec.CallID, rec.Level, rec.Message)
}

// logLine logs one ctx.log line of call callID (a log envelope or a "log"
// host call), within the worker's budget of logLinesPerSecond lines a
// second. An unknown level is logged at info with the level it had (the
// SDK refuses it before it gets here).
func (w *worker) logLine(callID, levelName, msg string) {
	log := w.p.log
	w.mu.Lock()
	if c := w.cur; c != nil && c.env != nil && c.id == callID {
		log = c.env.Logger()
	}
	w.mu.Unlock()
	level, known := logLevel(levelName)
	// Not counted when the log level filters it out, as stderr's lines.
	if !log.Enabled(context.Background(), level) || !w.logBudget.Allow() {
		return
	}
	args := []any{"pid", w.pid}
	if len(msg) > maxLogLine {
		n := maxLogLine
		for n > 0 && !utf8.RuneStart(msg[n]) {
			n-- // not in the middle of a character
		}
		args = append(args, "truncated_bytes", len(msg)-n)
		msg = msg[:n]
	}
	if !known {
		args = append(args, "bad_level", levelName)
	}
	log.Log(context.Background(), level, msg, args...)
}

// logLevel maps a ctx.log level name (case-insensitive) to slog's; an
// unknown name is info, with known false.
func logLevel(name string) (slog.Level, bool) {
	switch strings.ToLower(name) {
	case "debug":
		return slog.LevelDebug, true
	case "info", "":
		return slog.LevelInfo, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	}
	return slog.LevelInfo, false
}

// send writes one envelope as a single frame.
func (w *worker) send(env *abi.Envelope) error {
	codec := abi.JSON
	if w.mp {
		codec = abi.MsgPack
	} else if r := env.Result; r != nil && (r.Value != nil || r.Error != nil && r.Error.Data != nil) {
		// encoding/json writes the float 3.0 as 3 (and -0.0 as -0), which
		// Python reads as an int: the value and a host error's data go as
		// appendValue writes them (3.0), as in call frames and as
		// MessagePack keeps them.
		rc := *r
		if r.Value != nil {
			raw, err := appendValue(nil, r.Value, 0)
			if err != nil {
				return err
			}
			rc.Value = json.RawMessage(raw)
		}
		if r.Error != nil && r.Error.Data != nil {
			// (Data appendValue cannot write goes as the codec writes it.)
			if raw, err := appendValue(nil, r.Error.Data, 0); err == nil {
				te := *r.Error
				te.Data = json.RawMessage(raw)
				rc.Error = &te
			}
		}
		ec := *env
		ec.Result = &rc
		env = &ec
	}
	payload, err := codec.Marshal(env)
	if err != nil {
		return err
	}
	w.trace.Frame("out", payload)
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

// largeFrame is the size above which a write to the worker gets a write
// deadline: a smaller frame fits the pipe's buffer and never blocks.
const largeFrame = 16 << 10

// sendCall writes the call envelope (hand-encoded, see encode.go) with one
// write(2). A frame that may not fit the pipe gets the call's deadline as
// write deadline, so a worker that stops reading cannot hold the caller.
func (w *worker) sendCall(id string, call *abi.ToolCall, deadline time.Time) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	var b []byte
	var err error
	if w.mp {
		b, err = appendCallFrameMsgpack(w.wbuf[:0], id, call, w.pr.Spin.Microseconds())
	} else {
		b, err = appendCallFrame(w.wbuf[:0], id, call, w.pr.Spin.Microseconds())
	}
	if err != nil {
		var ee encodeError
		if errors.As(err, &ee) {
			return err
		}
		// Not JSON-encodable params.
		return encodeError(err.Error())
	}
	w.trace.Frame("out", b[4:])
	if len(b) > largeFrame && !deadline.IsZero() {
		_ = w.in.SetWriteDeadline(deadline)
		defer func() { _ = w.in.SetWriteDeadline(time.Time{}) }()
	}
	_, err = w.in.Write(b)
	if cap(b) > 1<<20 {
		b = nil // do not pin a large buffer
	}
	w.wbuf = b
	return err
}

// armSpin sets the spin window of this call's reads (see pipe.go).
func (w *worker) armSpin() {
	w.pr.Hit, w.pr.Miss, w.pr.Preempted = false, false, false
	w.pr.Spin = 0
	if w.spin <= 0 {
		return
	}
	if w.spinSkip > 0 {
		w.spinSkip--
		return
	}
	w.pr.Spin = w.spin
	if !w.spinWarm {
		w.pr.Spin = probeSpin * w.spin
	}
}

// spinDone updates the adaptive spinning after a call whose wait for
// the worker began at sent.
func (w *worker) spinDone(sent time.Time) {
	waited := time.Since(sent)
	switch {
	case w.pr.Miss:
		w.spinMisses++
		if w.pr.Preempted {
			w.spinMisses = max(w.spinMisses, spinMissesOK+1)
		}
		w.spinSkip = spinSkipAfter(w.spinMisses)
	case w.pr.Spin != 0: // the spin caught the result (or it was there)
		w.spinMisses = 0
	default:
		w.spinSkip = spinSkipAfterWait(w.spinSkip, w.spin, waited)
	}
	w.spinWarm = w.pr.Spin != 0 && !w.pr.Miss
	w.pr.Spin = 0
}

// undelivered wraps the error of a call whose writing failed: the worker
// had died (its stdin closed) before it could read the call, so the call
// never ran and Provider.Call serves it on another worker. A worker killed
// from outside is seen dead only once its reaper has run, so a call picking
// it from the pool just before met "writing the call failed: broken pipe"
// (ProviderCrashed; TestLeakWorkersKilled in a clean-clone CI run).
type undelivered struct{ err error }

func (u *undelivered) Error() string { return u.err.Error() }
func (u *undelivered) Unwrap() error { return u.err }

// call serves one call on the calling goroutine: it writes the call and
// reads the worker's frames (logs, host calls, the result) until the
// result arrives, the deadline passes, the context is cancelled or the
// worker dies. broken reports that the worker must not be reused.
func (w *worker) call(ctx context.Context, call *abi.ToolCall, env abi.Env) (v any, err error, broken bool) {
	id := call.ID
	if id == "" {
		id = "py-" + strconv.FormatUint(w.seq.Add(1), 10)
	}
	deadline := call.Deadline
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	if !deadline.Equal(call.Deadline) {
		// The frame carries the deadline the call runs to (ctx.deadline):
		// a context's alone made it None (TestDeadlineFromContext).
		cc := *call
		cc.Deadline = deadline
		call = &cc
	}
	c := &inflight{id: id, ctx: ctx, env: env}
	w.mu.Lock()
	w.cur = c
	w.reading = true
	w.mu.Unlock()
	defer w.endCall()
	defer c.endConns()
	// The spin window is decided before the call is written: the worker
	// spins after its answer only when the host spins for it (see pipe.go).
	w.armSpin()
	defer w.spinDone(time.Now())
	if err := w.sendCall(id, call, deadline); err != nil {
		var ee encodeError
		switch {
		case errors.As(err, &ee):
			return nil, abi.Errorf(abi.InvalidParams, "tool %s: %v", call.Tool, err), false
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, w.interrupt(call, context.DeadlineExceeded), true
		}
		w.kill("writing the call failed: " + err.Error())
		<-w.dead
		return nil, &undelivered{w.crashed(call)}, true
	}
	if err := w.pr.Begin(ctx, deadline); err != nil {
		var se *stopError
		if errors.As(err, &se) {
			return nil, w.interrupt(call, se.Cause), true
		}
		return nil, w.interrupt(call, err), true
	}
	defer w.pr.End()
	for {
		env, err := w.readEnvelope()
		if err != nil {
			var pe *protocolError
			var ve *valueError
			var se *stopError
			var fe *abi.FrameTooLargeError
			switch {
			case errors.As(err, &se):
				return nil, w.interrupt(call, se.Cause), true
			case errors.As(err, &fe):
				// The SDK refuses such a result itself (TooLarge, the worker
				// lives on); only a frame written around it gets here.
				w.kill(frameError(fe))
				<-w.dead
				return nil, abi.Errorf(abi.TooLarge, "tool %s: %s; a result must also fit limits.max_result_bytes; python worker (pid %d) killed and replaced", call.Tool, frameError(fe), w.pid), true
			case errors.As(err, &ve) && ve.kind == abi.KindResult:
				if ve.id != id {
					continue // a stale result (of a call cancelled before)
				}
				return nil, abi.Errorf(abi.InvalidResult, "tool %s returned a value that is not JSON: %v", call.Tool, ve.err), false
			case errors.As(err, &ve) && ve.kind == abi.KindHostCall:
				go w.refuseHost(ve)
				continue
			case errors.As(err, &pe):
				w.kill("protocol violation: " + pe.msg)
			default: // EOF or a closed pipe
				w.endOfOutput()
			}
			<-w.dead
			return nil, w.crashed(call), true
		}
		switch env.Kind {
		case abi.KindResult:
			// A result of another call (one cancelled before) is stale.
			if env.ID == id && env.Result != nil {
				if r := env.Result; r.Error != nil {
					return nil, r.Error, false
				}
				return env.Result.Value, nil, false
			}
		case abi.KindHostCall:
			if err := w.hostSlots.Acquire(ctx, deadline, w.dead); err != nil {
				return nil, w.interrupt(call, err), true
			}
			go w.serveHost(c, env.ID, env.Host)
		case abi.KindLog:
			if env.Log != nil {
				w.logRecord(env.Log)
			}
		default:
			w.kill(fmt.Sprintf("protocol violation: the worker sent a %q envelope", env.Kind))
			<-w.dead
			return nil, w.crashed(call), true
		}
	}
}

// endCall marks the end of reading for a call; if the worker was reaped
// meanwhile, the pipe is closed here (waitLoop leaves it to the reader).
func (w *worker) endCall() {
	w.mu.Lock()
	w.cur = nil
	w.reading = false
	exited := w.exited
	w.mu.Unlock()
	if exited {
		_ = w.out.Close()
	}
}

// outputGrace is how long a worker whose output reached its end during a
// call has to end by itself before it is killed.
const outputGrace = time.Second

// endOfOutput handles the end of the worker's output during a call. A
// worker that is ending closes it on its way out: its own exit status (or
// the signal that ended it) is what the call reports. One that lives on
// closed the pipe itself (a tool closing descriptors it does not own) and
// is killed saying so; before, it was killed without a reason and the
// SIGKILL blamed on the memory or CPU limit
// (TestClosedPipeNotBlamedOnLimits).
func (w *worker) endOfOutput() {
	t := time.NewTimer(outputGrace)
	defer t.Stop()
	select {
	case <-w.dead:
	case <-t.C:
		w.kill("it closed the pipe it answers on during the call, and lived on (does the tool close file descriptors it did not open?)")
	}
}

func (w *worker) crashed(call *abi.ToolCall) *abi.ToolError {
	w.mu.Lock()
	why, stopping := w.killedFor, w.stopping
	w.mu.Unlock()
	if stopping && (why == "" || why == killClosed) {
		// Not a crash: the host closed the provider (removed, replaced by
		// a reload, or shutting down) and the worker ended when told to
		// stop (an async tool's at once: its event loop reads the end of
		// its input as the host gone), or was killed after the grace.
		return abi.Errorf(abi.Unavailable, "tool %s: its provider was closed during the call (removed, replaced by a reload, or the host shutting down): %s", call.Tool, w.deathMsg)
	}
	return abi.Errorf(abi.ProviderCrashed, "tool %s: %s", call.Tool, w.deathMsg)
}

// defaultStackWait bounds how long a call past its deadline waits for the
// worker's stack (it comes in a few milliseconds from a worker that runs).
const defaultStackWait = 200 * time.Millisecond

// killClosed is why a worker still busy after stop's grace is killed.
const killClosed = "the provider was closed"

// interrupt kills the worker at the deadline or on cancellation.
func (w *worker) interrupt(call *abi.ToolCall, cause error) *abi.ToolError {
	w.mu.Lock()
	pending := w.cur.pendingOps()
	w.mu.Unlock()
	if errors.Is(cause, context.Canceled) {
		w.kill("the call was cancelled")
		return abi.Errorf(abi.Cancelled, "tool %s: the call was cancelled%s; python worker (pid %d) killed and replaced", call.Tool, pending, w.pid)
	}
	if pending == "" {
		// Where it was, asked for a moment past the deadline
		// (TestDeadlineNamesLine).
		wait := w.p.rt.stackWait
		if wait == 0 {
			wait = defaultStackWait
		}
		if l := w.stackLine(wait); l != "" {
			pending = " while it ran at " + l
		}
	}
	w.kill("the call's deadline passed")
	return abi.Errorf(abi.Timeout, "tool %s: the deadline passed%s; python worker (pid %d) and its process group killed and replaced", call.Tool, pending, w.pid)
}

// stop ends an idle worker: stdin is closed so it exits by itself, and its
// process group is killed if it is still there after grace.
func (w *worker) stop(grace time.Duration) {
	w.mu.Lock()
	w.stopping = true
	w.mu.Unlock()
	_ = w.in.Close()
	go func() {
		select {
		case <-w.dead:
		case <-time.After(grace):
			w.kill(killClosed)
		}
	}()
}

// sendPins writes the provider's pins to a worker's start gate (JSON; the
// worker reads the gate to its end before it imports anything).
func (p *Provider) sendPins(gate *os.File, timeout time.Duration) error {
	_ = gate.SetWriteDeadline(time.Now().Add(timeout))
	_, err := gate.Write(p.pins)
	return err
}
