package js

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/pipe"
	"github.com/aios-host/aios-host/internal/proclimit"
	"github.com/aios-host/aios-host/internal/wire"
)

// The worker side of process isolation (isolate.go). Any program linked
// with this package becomes a worker when it starts with AIOS_JS_WORKER=1
// in its environment: this package's init serves the worker protocol and
// exits, before main (or a test binary's TestMain) runs. So the host needs
// no second binary, and a test binary can start workers of itself.

func init() {
	if os.Getenv(workerEnv) == "1" {
		// Not on init's own goroutine: the runtime locks it to the main
		// thread during initialization, and every time a locked goroutine
		// blocks, its thread must be handed the CPU by another (a call
		// round trip took 190 µs instead of 115 µs before this change).
		code := make(chan int)
		go func() { code <- workerMain() }()
		os.Exit(<-code)
	}
}

// maxWorkerFrame bounds a frame either way: a result of MaxResultBytes
// (64 MiB by default) with the envelope around it.
const maxWorkerFrame = abi.DefaultMaxFrame + 1<<20

// maxReadInFrame is the largest object whose space_read answer (base64
// data and the envelope around it) fits in a frame to the worker: a
// larger one is refused before the host reads it.
const maxReadInFrame int64 = (maxWorkerFrame - 64<<10) / 4 * 3

// workerMain serves one provider: it reads the load request, loads the
// bundle, answers with the registration, then serves calls until stdin
// ends. It returns the process exit code.
func workerMain() int {
	out, err := protectStdout()
	if err != nil {
		fmt.Fprintln(os.Stderr, "aios js worker:", err)
		return 2
	}
	// The hello exchange (internal/wire): the formats this worker
	// speaks, in JSON; the host's choice comes back in JSON, and every
	// later frame either way is in that format. The host's frames are read
	// unbuffered (exact reads) until the reader of the calls is set up.
	offered := wire.Formats
	if f := os.Getenv(formatsEnv); f != "" {
		offered = strings.Split(f, ",")
	}
	if err := writeRawFrame(out, wire.WorkerHello(offered)); err != nil {
		fmt.Fprintln(os.Stderr, "aios js worker: cannot send the hello:", err)
		return 2
	}
	frame, err := abi.ReadFrame(os.Stdin, maxWorkerFrame)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aios js worker: no answer to the hello:", err)
		return 2
	}
	format, err := wire.ParseHostHello(frame, offered)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aios js worker:", err)
		return 2
	}
	codec, err := abi.CodecByName(format)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aios js worker:", err)
		return 2
	}
	if frame, err = abi.ReadFrame(os.Stdin, maxWorkerFrame); err != nil {
		fmt.Fprintln(os.Stderr, "aios js worker: no load request:", err)
		return 2
	}
	var lr loadRequest
	if err := codec.Unmarshal(frame, &lr); err != nil {
		fmt.Fprintln(os.Stderr, "aios js worker: bad load request:", err)
		return 2
	}
	o := lr.Options
	// Stdin is read through the Go poller (non-blocking), so that after
	// its last answer a call's goroutine can wait for the next call
	// without sleeping (awaitNext).
	var in io.Reader = os.Stdin
	if r, err := pollStdin(); err == nil {
		in = r
	} else {
		fmt.Fprintln(os.Stderr, "aios js worker: stdin stays blocking:", err)
		o.Spin = 0
	}
	in = bufio.NewReaderSize(in, 64<<10)
	if o.ProcessMemory > 0 {
		if err := proclimit.LimitData(o.ProcessMemory); err != nil {
			fmt.Fprintln(os.Stderr, "aios js worker: running without a hard memory limit:", err)
		}
		// Make the collector work harder before the hard limit is hit.
		debug.SetMemoryLimit(o.ProcessMemory * 7 / 8)
	}
	if !o.Unconfined {
		// Now that the limit is set: no raising it again, no sockets, no
		// io_uring, on every thread (the Python workers' filter).
		if err := confineSelf(); err != nil {
			fmt.Fprintln(os.Stderr, "aios js worker: running without a seccomp filter:", err)
		}
	}
	s := &childServer{out: out, codec: codec, spin: o.Spin, cancels: map[string]context.CancelFunc{}, waits: map[string]chan *abi.ToolResult{}}
	logger := slog.New(&frameLogHandler{s: s})
	o.Logger, o.Isolation = logger, IsolationInProcess
	rt := New(o)
	defer rt.Close()
	prov, err := rt.loadBundle(&bundled{Code: lr.Code, Name: lr.Name},
		abi.Source{Path: lr.Path, ProviderID: lr.ProviderID, Unit: lr.Unit, Logger: logger}, lr.Runtime)
	if err != nil {
		_ = s.send(&abi.Envelope{Kind: abi.KindResult, ID: "load", Result: &abi.ToolResult{
			Error: &abi.ToolError{Code: abi.ProviderError, Message: err.Error()}}})
		return 1
	}
	defer prov.Close()
	s.prov = prov
	if err := s.send(&abi.Envelope{Kind: abi.KindRegister, Register: prov.Describe()}); err != nil {
		fmt.Fprintln(os.Stderr, "aios js worker: cannot send the registration:", err)
		return 2
	}
	code := s.serve(in)
	s.wg.Wait()
	return code
}

// childServer is the worker's end of the protocol.
type childServer struct {
	out   io.Writer
	codec abi.Codec // the negotiated wire format
	wmu   sync.Mutex
	prov  *Provider
	wg    sync.WaitGroup
	spin  time.Duration // awaitNext's window (<= 0: none)
	busy  atomic.Int32  // calls in flight

	mu      sync.Mutex
	cancels map[string]context.CancelFunc   // calls in flight
	waits   map[string]chan *abi.ToolResult // host calls in flight
	hostSeq uint64
}

// serve reads the host's frames until stdin ends.
func (s *childServer) serve(in io.Reader) int {
	for {
		frame, err := abi.ReadFrame(in, maxWorkerFrame)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintln(os.Stderr, "aios js worker: reading from the host:", err)
			return 2
		}
		env := new(abi.Envelope)
		if err := s.codec.Unmarshal(frame, env); err != nil {
			fmt.Fprintln(os.Stderr, "aios js worker: bad frame from the host:", err)
			return 2
		}
		switch env.Kind {
		case abi.KindCall:
			if env.Call == nil {
				continue
			}
			s.wg.Add(1)
			s.busy.Add(1)
			go s.call(env.ID, env.Call, env.Nested)
		case abi.KindHostResult:
			s.mu.Lock()
			ch := s.waits[env.ID]
			delete(s.waits, env.ID)
			s.mu.Unlock()
			if ch != nil && env.Result != nil {
				ch <- env.Result
			}
		case abi.KindCancel:
			s.mu.Lock()
			cancel := s.cancels[env.ID]
			s.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		case kindClose:
			_ = s.prov.Close()
		}
	}
}

// call serves one call and sends its result.
func (s *childServer) call(id string, call *abi.ToolCall, nested bool) {
	defer s.wg.Done()
	base := context.Background()
	if nested {
		// It came back through a host call of one of this worker's
		// calls (Envelope.Nested): the provider's pool serves it as
		// it serves its own nested calls in process (getSlow).
		base = context.WithValue(base, nestKey{s.prov}, true)
	}
	ctx, cancel := context.WithCancel(base)
	if !call.Deadline.IsZero() {
		ctx, cancel = context.WithDeadline(base, call.Deadline)
	}
	s.mu.Lock()
	s.cancels[id] = cancel
	s.mu.Unlock()
	env := &childEnv{s: s, id: id, call: call, logger: slog.New(&frameLogHandler{s: s, callID: id})}
	v, err := s.prov.Call(ctx, call, env)
	cancel()
	s.mu.Lock()
	delete(s.cancels, id)
	s.mu.Unlock()
	res := &abi.ToolResult{CallID: call.ID}
	if err != nil {
		res.Error = abi.AsToolError(err, abi.ProviderError)
	} else {
		res.Value = v
	}
	// The report of the log lines the provider's budget suppressed goes
	// before the result, which the host reads: from the budget's timer it
	// came when no call read this worker's output, and waited for the
	// next call (TestLogFloodReportArrives).
	s.prov.logs.flush()
	if err := s.send(&abi.Envelope{Kind: abi.KindResult, ID: id, Result: res}); err != nil {
		res = &abi.ToolResult{CallID: call.ID, Error: abi.Errorf(abi.TooLarge, "%s: the result cannot be sent from the JS worker process: %v", call.Tool, err)}
		if err := s.send(&abi.Envelope{Kind: abi.KindResult, ID: id, Result: res}); err != nil {
			fmt.Fprintln(os.Stderr, "aios js worker: cannot send a result:", err)
		}
	}
	if s.busy.Add(-1) == 0 {
		s.awaitNext()
	}
}

// awaitNext polls stdin for up to the spin window after the last call in
// flight has answered. The worker runs with GOMAXPROCS=1, so the frame
// reader is parked on the poller of this very thread: if the next call
// arrives while this goroutine polls, the scheduler finds the reader
// runnable as this goroutine ends, without the thread going to sleep and
// being woken (a wake-up costs 20–90 µs on this VM). A poll that sees a
// gap longer than pipe.PreemptGap stops: another task wants the CPU.
func (s *childServer) awaitNext() {
	if s.spin <= 0 {
		return
	}
	start := time.Now()
	last := start
	for {
		if stdinReadyOrUnpollable() {
			return
		}
		now := time.Now()
		if now.Sub(start) > s.spin || now.Sub(last) > pipe.PreemptGap || s.busy.Load() != 0 {
			return
		}
		last = now
	}
}

// send writes one envelope to the host.
func (s *childServer) send(env *abi.Envelope) error {
	return sendFrame(&s.wmu, s.out, s.codec, nil, env)
}

// writeRawFrame writes payload as one frame, in one write.
func writeRawFrame(out io.Writer, payload []byte) error {
	frame := make([]byte, 4+len(payload))
	binary.BigEndian.PutUint32(frame, uint32(len(payload)))
	copy(frame[4:], payload)
	_, err := out.Write(frame)
	return err
}

// childEnv is abi.Env inside a worker: every host service is a host_call
// answered by the host, which applies the call's grants as it would for
// an in-process provider.
type childEnv struct {
	s      *childServer
	id     string
	call   *abi.ToolCall
	logger *slog.Logger
}

func (e *childEnv) Call() *abi.ToolCall  { return e.call }
func (e *childEnv) Logger() *slog.Logger { return e.logger }

func (e *childEnv) host(ctx context.Context, op string, args map[string]any) (any, error) {
	ch := make(chan *abi.ToolResult, 1)
	e.s.mu.Lock()
	e.s.hostSeq++
	hid := "h" + strconv.FormatUint(e.s.hostSeq, 10)
	e.s.waits[hid] = ch
	e.s.mu.Unlock()
	forget := func() {
		e.s.mu.Lock()
		delete(e.s.waits, hid)
		e.s.mu.Unlock()
	}
	hc := &abi.HostCall{CallID: e.id, Op: op, Args: args}
	if err := e.s.send(&abi.Envelope{Kind: abi.KindHostCall, ID: hid, Host: hc}); err != nil {
		forget()
		var big *frameTooLargeError
		if errors.As(err, &big) {
			// A size, not a malformed argument: ctx.spaces.write of
			// 50 MiB (base64) said InvalidParams, naming no space.
			return nil, abi.Errorf(abi.TooLarge, "%s: its request of %d bytes is over the frame limit of %d bytes between the JS worker process and the host", hostCallWhat(hc), big.size, maxWorkerFrame)
		}
		return nil, abi.Errorf(abi.InvalidParams, "%s: cannot send the request to the host: %v", op, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, r.Error
		}
		return r.Value, nil
	case <-ctx.Done():
		forget()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, abi.Errorf(abi.Timeout, "%s: the call's deadline passed", op)
		}
		return nil, abi.Errorf(abi.Unavailable, "%s: the call was cancelled", op)
	}
}

func (e *childEnv) CallTool(ctx context.Context, tool, version string, params any) (any, error) {
	return e.host(ctx, "call_tool", map[string]any{"tool": tool, "version": version, "params": params})
}

func (e *childEnv) SpaceRead(ctx context.Context, space, id string) (abi.Object, error) {
	v, err := e.host(ctx, "space_read", map[string]any{"space": space, "id": id})
	if err != nil {
		return abi.Object{}, err
	}
	return objectFrom(v, true)
}

func (e *childEnv) SpaceWrite(ctx context.Context, space string, data []byte) (abi.Object, error) {
	v, err := e.host(ctx, "space_write", map[string]any{"space": space, "data": base64.StdEncoding.EncodeToString(data)})
	if err != nil {
		return abi.Object{}, err
	}
	return objectFrom(v, false)
}

func objectFrom(v any, withData bool) (abi.Object, error) {
	m, _ := v.(map[string]any)
	str := func(k string) string { s, _ := m[k].(string); return s }
	obj := abi.Object{Space: str("space"), ID: str("id")}
	if withData {
		data, err := base64.StdEncoding.DecodeString(str("data"))
		if err != nil {
			return abi.Object{}, abi.Errorf(abi.Internal, "space_read: the host's data is not base64: %v", err)
		}
		obj.Data = data
	}
	return obj, nil
}

func (e *childEnv) Complete(ctx context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	args := map[string]any{"prompt": req.Prompt, "system": req.System, "model": req.Model}
	if req.MaxTokens != 0 {
		args["max_tokens"] = int64(req.MaxTokens)
	}
	if req.Temperature != nil {
		args["temperature"] = *req.Temperature
	}
	if len(req.Stop) > 0 {
		stop := make([]any, len(req.Stop))
		for i, s := range req.Stop {
			stop[i] = s
		}
		args["stop"] = stop
	}
	v, err := e.host(ctx, "ai_complete", args)
	if err != nil {
		return abi.CompleteResponse{}, err
	}
	m, _ := v.(map[string]any)
	text, _ := m["text"].(string)
	model, _ := m["model"].(string)
	finish, _ := m["finish_reason"].(string)
	return abi.CompleteResponse{Text: text, Model: model, FinishReason: finish}, nil
}

// frameLogHandler sends log records to the host as log frames (the
// attributes written into the message as key=value).
type frameLogHandler struct {
	s      *childServer
	callID string
	attrs  string
}

func (h *frameLogHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *frameLogHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	b.WriteString(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != "source" {
			b.WriteString(" " + a.Key + "=" + a.Value.String())
		}
		return true
	})
	level := "info"
	switch {
	case r.Level >= slog.LevelError:
		level = "error"
	case r.Level >= slog.LevelWarn:
		level = "warn"
	case r.Level < slog.LevelInfo:
		level = "debug"
	}
	return h.s.send(&abi.Envelope{Kind: abi.KindLog, Log: &abi.LogRecord{Level: level, Message: b.String(), CallID: h.callID}})
}

func (h *frameLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	for _, a := range attrs {
		n.attrs += " " + a.Key + "=" + a.Value.String()
	}
	return &n
}

func (h *frameLogHandler) WithGroup(string) slog.Handler { return h }
