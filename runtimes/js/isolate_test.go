package js

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/landlock"
	"github.com/aios-host/aios-host/internal/proclimit"
	"github.com/aios-host/aios-host/internal/testutil"
)

// isolatedSource is a provider whose tools use every host service, and
// two that misbehave.
const isolatedSource = `
aios.registerTool({name: 'echo', description: 'echo', parameters: {type: 'object'}}, (p) => p);
aios.registerTool({name: 'services', description: 'host services', parameters: {type: 'object'}}, async (p, ctx) => {
  const id = await ctx.spaces.write('scratch', 'hello ' + p.who);
  const text = await ctx.spaces.read(id);
  const bytes = await ctx.spaces.read(id, 'scratch', true);
  const sum = await ctx.callTool('add', {a: 2, b: 3});
  const reply = await ctx.ai.complete('say hi', {maxTokens: 7});
  ctx.log.warn('logged from a worker');
  return {id, text, bytes: bytes.length, sum, reply, caller: ctx.call.caller};
});
aios.registerTool({name: 'amplify', description: 'a join far larger than the machine'}, () => {
  // 4096 references to one 16 Mi-character string: the join asks for
  // 64 Gi characters in one native call, which no size check sees.
  return new Array(4096).fill('x'.repeat(1 << 24)).join('').length;
});
aios.registerTool({name: 'loop', description: 'never returns'}, () => { for (;;) {} });
aios.registerTool({name: 'fail', description: 'throws'}, () => { throw new Error('it failed'); });
`

func loadIsolated(t *testing.T, opts Options, src string) *ProcessProvider {
	t.Helper()
	if opts.Isolation == "" {
		opts.Isolation = IsolationProcess
	}
	rt := newRuntime(t, opts)
	p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "isolated.js", src)}, abi.RuntimeJS)
	if err != nil {
		t.Fatal(err)
	}
	pp, ok := p.(*ProcessProvider)
	if !ok {
		t.Fatalf("isolation %q loaded a %T, want *ProcessProvider", opts.Isolation, p)
	}
	t.Cleanup(func() { _ = pp.Close() })
	return pp
}

func callIsolated(t *testing.T, p abi.Provider, env abi.Env, tool string, params any, timeout time.Duration) (any, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := &abi.ToolCall{ID: "c-" + tool, Caller: "tester", Tool: tool, Params: params}
	if fe, ok := env.(*fakeEnv); ok {
		fe.call = c
	}
	return p.Call(ctx, c, env)
}

func TestProcessIsolationServes(t *testing.T) {
	var logs testutil.SyncBuffer
	p := loadIsolated(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, isolatedSource)
	if pid := p.PID(); pid == 0 || pid == os.Getpid() {
		t.Fatalf("worker pid %d (host %d): the provider is not in a process of its own", pid, os.Getpid())
	}
	var names []string
	for _, d := range p.Describe().Tools {
		names = append(names, d.Name)
	}
	if want := []string{"echo", "services", "amplify", "loop", "fail"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	in := map[string]any{"s": "é", "n": int64(42), "f": 1.5, "l": []any{true, nil}, "o": map[string]any{"k": "v"}}
	got, err := callIsolated(t, p, newFakeEnv(), "echo", in, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("echo through the worker: got %#v, want %#v", got, in)
	}

	env := newFakeEnv()
	env.tools["add"] = func(_ context.Context, params any) (any, error) {
		m := params.(map[string]any)
		return m["a"].(int64) + m["b"].(int64), nil
	}
	env.complete = func(req abi.CompleteRequest) (abi.CompleteResponse, error) {
		return abi.CompleteResponse{Text: req.Prompt + " back", Model: "m"}, nil
	}
	got, err = callIsolated(t, p, env, "services", map[string]any{"who": "worker"}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	m := got.(map[string]any)
	if m["text"] != "hello worker" || m["bytes"] != int64(12) || m["sum"] != int64(5) || m["reply"] != "say hi back" || m["caller"] != "tester" {
		t.Fatalf("host services through the worker: %#v", m)
	}
	if _, ok := env.objects[m["id"].(string)]; !ok {
		t.Fatalf("space write did not reach the host: %v", m["id"])
	}
	env.mu.Lock()
	callLogs := strings.Join(env.logs, "\n")
	env.mu.Unlock()
	if !strings.Contains(callLogs, "WARN logged from a worker") {
		t.Fatalf("the worker's log line did not reach the call's logger: %q", callLogs)
	}

	_, err = callIsolated(t, p, newFakeEnv(), "fail", nil, 30*time.Second)
	te := wantCode(t, err, abi.ProviderError)
	if !strings.Contains(te.Message, "it failed") || !strings.Contains(te.Message, "isolated.js:") {
		t.Fatalf("a throw in the worker lost its message or location: %q", te.Message)
	}
	_, err = callIsolated(t, p, newFakeEnv(), "nope", nil, 30*time.Second)
	wantCode(t, err, abi.NotFound)
	// The worker set its memory limit and its seccomp filter, and was
	// confined with Landlock (each failure is a logged warning).
	if out := logs.String(); strings.Contains(out, "running without") || strings.Contains(out, "without Landlock") {
		t.Errorf("the worker is not fully confined here:\n%s", out)
	}
}

// TestProcessIsolationAmplification is the case the in-process guard
// cannot stop: a built-in whose result is huge because its input repeats
// one large value. In process, it would end the host; isolated, it ends
// the worker, the call fails with ProviderCrashed naming the limit, and
// the next call is served by a new worker.
//
// The per-call budget is set far above the worker's limit so that the hard
// limit, not the in-process guard, is what stops the call (with a budget
// below the limit either may win: the guard abandons the runtime and the
// call fails; the join goes on in the worker until the limit ends it).
func TestProcessIsolationAmplification(t *testing.T) {
	p := loadIsolated(t, Options{MemoryBudget: 64 << 30, ProcessMemory: 512 << 20}, isolatedSource)
	first := p.PID()
	_, err := callIsolated(t, p, newFakeEnv(), "amplify", nil, 2*time.Minute)
	te := wantCode(t, err, abi.ProviderCrashed)
	if !strings.Contains(te.Message, "amplify") || !strings.Contains(te.Message, "512 MiB") {
		t.Fatalf("the crash does not name the tool and the worker's memory limit: %q", te.Message)
	}
	got, err := callIsolated(t, p, newFakeEnv(), "echo", map[string]any{"after": "crash"}, time.Minute)
	if err != nil {
		t.Fatalf("the call after the crash: %v", err)
	}
	if !reflect.DeepEqual(got, map[string]any{"after": "crash"}) {
		t.Fatalf("after the crash: %#v", got)
	}
	if p.Started() != 2 || p.PID() == first {
		t.Fatalf("started %d workers (pid %d, first %d), want a second one", p.Started(), p.PID(), first)
	}
}

func TestProcessIsolationDeadlineAndKill(t *testing.T) {
	p := loadIsolated(t, Options{}, isolatedSource)
	first := p.PID()
	start := time.Now()
	_, err := callIsolated(t, p, newFakeEnv(), "loop", nil, 300*time.Millisecond)
	wantCode(t, err, abi.Timeout)
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("an endless loop returned after %v", d)
	}
	if _, err := callIsolated(t, p, newFakeEnv(), "echo", map[string]any{}, time.Minute); err != nil {
		t.Fatalf("after the timeout: %v", err)
	}
	if p.PID() != first {
		t.Fatalf("a timeout replaced the worker (the worker discards the runtime, not the process)")
	}

	// A worker killed from outside: the calls in flight fail, the next
	// call starts a new worker.
	errc := make(chan error, 1)
	go func() {
		_, err := callIsolated(t, p, newFakeEnv(), "loop", nil, time.Minute)
		errc <- err
	}()
	time.Sleep(300 * time.Millisecond)
	if err := testutil.Kill(first); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		te := wantCode(t, err, abi.ProviderCrashed)
		if !strings.Contains(te.Message, "killed") {
			t.Fatalf("crash message %q does not say the worker was killed", te.Message)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a call whose worker was killed did not return")
	}
	if _, err := callIsolated(t, p, newFakeEnv(), "echo", map[string]any{}, time.Minute); err != nil {
		t.Fatalf("after the kill: %v", err)
	}
	if p.PID() == first || p.Started() != 2 {
		t.Fatalf("no new worker after the kill (pid %d, started %d)", p.PID(), p.Started())
	}
}

func TestProcessIsolationLoadErrors(t *testing.T) {
	for name, src := range map[string]string{
		"nothing":   `const x = 1;`,
		"duplicate": `aios.registerTool({name: 'a'}, () => 1); aios.registerTool({name: 'a'}, () => 2);`,
		"throws":    `throw new Error('top-level failure');`,
	} {
		t.Run(name, func(t *testing.T) {
			path := writeSource(t, name+".js", src)
			_, inErr := newRuntime(t, Options{}).load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
			_, outErr := newRuntime(t, Options{Isolation: IsolationProcess}).load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
			if inErr == nil || outErr == nil {
				t.Fatalf("a bad provider loaded: in-process %v, isolated %v", inErr, outErr)
			}
			if inErr.Error() != outErr.Error() {
				t.Fatalf("load errors differ:\n in-process: %s\n   isolated: %s", inErr, outErr)
			}
		})
	}
}

func TestIsolationByTrust(t *testing.T) {
	rt := newRuntime(t, Options{Isolation: IsolationUntrusted})
	path := writeSource(t, "trust.js", `aios.registerTool({name: 'echo'}, (p) => p);`)
	for _, c := range []struct {
		trust   abi.TrustLevel
		process bool
	}{{abi.Untrusted, true}, {abi.Community, false}, {abi.System, false}} {
		p, err := rt.load(context.Background(), abi.Source{Path: path, Trust: c.trust}, abi.RuntimeJS)
		if err != nil {
			t.Fatal(err)
		}
		_, isProc := p.(*ProcessProvider)
		_ = p.Close()
		if isProc != c.process {
			t.Errorf("trust %v: in a worker process = %v, want %v", c.trust, isProc, c.process)
		}
	}
}

func TestConfigIsolation(t *testing.T) {
	if got := (Config{}).ToOptions(nil).Isolation; got != IsolationUntrusted {
		t.Errorf("the host config's default isolation is %q, want %q", got, IsolationUntrusted)
	}
	if got := (Options{}).withDefaults().Isolation; got != IsolationInProcess {
		t.Errorf("the library's default isolation is %q, want %q", got, IsolationInProcess)
	}
	if err := (Config{Isolation: "sandbox"}).Validate(); err == nil || !strings.Contains(err.Error(), "runtimes.js.isolation") {
		t.Errorf("a bad isolation value: %v", err)
	}
	if err := (Config{Wire: "xml"}).Validate(); err == nil || !strings.Contains(err.Error(), `runtimes.js.wire: "xml" is not a wire format`) {
		t.Errorf("a bad wire value: %v", err)
	}
	if got := (Config{Wire: "json"}).ToOptions(nil).withDefaults().Wire; got != "json" {
		t.Errorf("wire: json gives Options.Wire %q", got)
	}
	if got := (Config{}).ToOptions(nil).withDefaults().Wire; got != "msgpack" {
		t.Errorf("the default Options.Wire is %q, want msgpack", got)
	}
	zero, big := time.Duration(0), 2*time.Millisecond
	if got := (Config{Spin: &zero}).ToOptions(nil).withDefaults().Spin; got >= 0 {
		t.Errorf("spin: 0 gives Options.Spin %v, want negative (off)", got)
	}
	if got := (Config{WorkerIdle: &zero}).ToOptions(nil).withDefaults().WorkerIdle; got >= 0 {
		t.Errorf("worker_idle: 0 gives Options.WorkerIdle %v, want negative (never)", got)
	}
	no := false
	if !(Config{Confine: &no}).ToOptions(nil).Unconfined || (Config{}).ToOptions(nil).Unconfined {
		t.Error("confine: false must give Options.Unconfined, and only it")
	}
	if got := (Config{}).ToOptions(nil).withDefaults().Spin; got != 100*time.Microsecond {
		t.Errorf("the default spin is %v", got)
	}
	if err := (Config{Spin: &big}).Validate(); err == nil || !strings.Contains(err.Error(), "runtimes.js.spin") {
		t.Errorf("a spin of 2ms: %v", err)
	}
	if got := (Options{MemoryBudget: 2 << 30}).withDefaults().ProcessMemory; got != 2<<30+768<<20 {
		t.Errorf("process memory for a 2 GiB budget: %d MiB", got>>20)
	}
	if got := (Config{}).ToOptions(nil).withDefaults().BundleTimeout; got != 10*time.Second {
		t.Errorf("the default bundle timeout is %v", got)
	}
	if got := (Config{BundleTimeout: time.Minute}).ToOptions(nil).withDefaults().BundleTimeout; got != time.Minute {
		t.Errorf("bundle_timeout: 1m gives %v", got)
	}
	if err := (Config{BundleTimeout: -time.Second}).Validate(); err == nil || !strings.Contains(err.Error(), "runtimes.js.bundle_timeout") {
		t.Errorf("a negative bundle timeout: %v", err)
	}
}

// TestProcessIsolationClose: closing the provider ends its worker (its
// stdin ends; it exits once its calls have answered) and later calls are
// refused.
func TestProcessIsolationClose(t *testing.T) {
	p := loadIsolated(t, Options{}, isolatedSource)
	pid := p.PID()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for testutil.Alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("worker %d still runs 30 s after Close", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err := callIsolated(t, p, newFakeEnv(), "echo", map[string]any{}, time.Second)
	wantCode(t, err, abi.Unavailable)
}

// TestProcessIsolationBadWorker: a worker that answers the bundle with
// garbage is a load error naming the problem, not a hang or a panic.
func TestProcessIsolationBadWorker(t *testing.T) {
	script := filepath.Join(t.TempDir(), "bad-worker")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '\\000\\000\\000\\005hello'\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Unconfined: a confined worker may execute nothing but its own
	// executable, and this one is a shell script.
	rt := newRuntime(t, Options{Isolation: IsolationProcess, WorkerCommand: script, Unconfined: true})
	start := time.Now()
	_, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "w.js", `aios.registerTool({name: 'a'}, () => 1);`)}, abi.RuntimeJS)
	if err == nil || !strings.Contains(err.Error(), "first message is not a JSON hello (0x68656c6c6f)") || !strings.Contains(err.Error(), "w.js") {
		t.Fatalf("garbage from the worker: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the load took %v", d)
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// FuzzWorkerFrames feeds arbitrary bytes to the host's reader of a
// worker's frames and dispatches what decodes: it must end with an error
// (on which the host kills the worker) and never panic.
func FuzzWorkerFrames(f *testing.F) {
	for _, env := range []*abi.Envelope{
		{V: 1, Kind: abi.KindResult, ID: "1", Result: &abi.ToolResult{Value: map[string]any{"a": int64(1)}}},
		{V: 1, Kind: abi.KindHostCall, ID: "h1", Host: &abi.HostCall{CallID: "1", Op: "space_read", Args: map[string]any{"id": "x"}}},
		{V: 1, Kind: abi.KindLog, Log: &abi.LogRecord{Level: "warn", Message: "m", CallID: "1"}},
		{V: 1, Kind: "bogus"},
	} {
		// The first byte picks the codec (even: MessagePack, odd: JSON).
		for i, codec := range []abi.Codec{abi.MsgPack, abi.JSON} {
			frame, err := encodeFrame(codec, env)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(append([]byte{byte(i)}, frame...))
		}
	}
	f.Add([]byte{0, 0, 0, 0, 9, 1, 2})
	f.Add([]byte{1, 0, 0, 0, 2, '{', '}'})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		codec := abi.MsgPack
		if data[0]&1 == 1 {
			codec = abi.JSON
		}
		data = data[1:]
		p := &ProcessProvider{rt: New(Options{}), logger: slog.New(slog.DiscardHandler)}
		w := &procWorker{
			p: p, cmd: &exec.Cmd{}, stdin: nopWriteCloser{io.Discard},
			stdout: bufio.NewReader(bytes.NewReader(data)), codec: codec,
			calls: map[string]*procCall{"1": {ctx: context.Background(), env: newFakeEnv(), done: make(chan *abi.ToolResult, 1)}},
			dead:  make(chan struct{}),
		}
		for {
			env, err := w.readEnvelope()
			if err != nil {
				return
			}
			w.dispatch(env)
		}
	})
}

// BenchmarkProcessEcho is one caller's round trip to an isolated
// provider's echo tool (no host pipeline), with and without spinning.
func BenchmarkProcessEcho(b *testing.B) {
	for _, c := range []struct {
		name string
		spin time.Duration
	}{{"spin", 0}, {"nospin", -1}} {
		b.Run(c.name, func(b *testing.B) {
			rt := newRuntime(b, Options{Isolation: IsolationProcess, Spin: c.spin})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(b, "echo.js", `aios.registerTool({name: 'echo'}, (p) => p);`)}, abi.RuntimeJS)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			env := newFakeEnv()
			call := &abi.ToolCall{ID: "c", Tool: "echo", Params: map[string]any{"msg": "hello", "n": int64(42)}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Call(ctx, call, env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestProcessIsolationIdleWorker: a worker no call has used for
// WorkerIdle is stopped; the next call starts a new one.
func TestProcessIsolationIdleWorker(t *testing.T) {
	p := loadIsolated(t, Options{WorkerIdle: 200 * time.Millisecond}, isolatedSource)
	first := p.PID()
	deadline := time.Now().Add(30 * time.Second)
	for p.PID() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("worker %d still runs 30 s after its last call (idle limit 200ms)", first)
		}
		time.Sleep(20 * time.Millisecond)
	}
	got, err := callIsolated(t, p, newFakeEnv(), "echo", map[string]any{"again": true}, time.Minute)
	if err != nil || !reflect.DeepEqual(got, map[string]any{"again": true}) {
		t.Fatalf("the call after the idle stop: %v %v", got, err)
	}
	if p.Started() != 2 || p.PID() == 0 || p.PID() == first {
		t.Fatalf("no new worker after the idle stop (started %d, pid %d)", p.Started(), p.PID())
	}
	// A busy worker is not stopped: calls closer together than the limit.
	second := p.PID()
	for range 8 {
		if _, err := callIsolated(t, p, newFakeEnv(), "echo", map[string]any{}, time.Minute); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if p.PID() != second {
		t.Fatalf("a worker in use was stopped (pid %d, was %d)", p.PID(), second)
	}
}

// TestProcessIsolationRestartBackoff: workers that die without answering
// are restarted after a growing delay, not on every call; one that answered
// before it died is replaced at once.
func TestProcessIsolationRestartBackoff(t *testing.T) {
	p := loadIsolated(t, Options{}, isolatedSource)
	killWorker := func() {
		t.Helper()
		pid := p.PID()
		if pid == 0 {
			t.Fatal("no worker to kill")
		}
		if err := testutil.Kill(pid); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); p.PID() != 0; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the killed worker is still seen alive")
			}
		}
	}
	echo := func() error {
		_, err := callIsolated(t, p, newFakeEnv(), "echo", map[string]any{}, time.Minute)
		return err
	}
	if err := echo(); err != nil { // the first worker answers
		t.Fatal(err)
	}
	killWorker()
	if err := echo(); err != nil { // it had answered: replaced at once
		t.Fatalf("after the death of a worker that had answered: %v", err)
	}
	// Two deaths in a row without an answer: the third start waits.
	killWorker()
	p.mu.Lock()
	p.w.answered.Store(false) // as if this worker had never answered
	p.mu.Unlock()
	if err := echo(); err != nil {
		t.Fatalf("first failure: %v", err)
	}
	p.mu.Lock()
	p.w.answered.Store(false)
	p.mu.Unlock()
	killWorker()
	started := p.Started()
	err := echo()
	te := wantCode(t, err, abi.Unavailable)
	if !strings.Contains(te.Message, "died 2 times in a row") {
		t.Fatalf("backoff message: %q", te.Message)
	}
	if p.Started() != started {
		t.Fatal("a worker was started during the backoff")
	}
	time.Sleep(restartBackoff(2) + 20*time.Millisecond)
	if err := echo(); err != nil {
		t.Fatalf("after the backoff: %v", err)
	}
}

// BenchmarkProcessLoad is loading an isolated provider: bundling, starting
// its worker process and the worker's registration (what hot reload of an
// unsigned JS file adds to the in-process load).
func BenchmarkProcessLoad(b *testing.B) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		b.Run(iso, func(b *testing.B) {
			rt := newRuntime(b, Options{Isolation: iso})
			path := writeSource(b, "load.js", `aios.registerTool({name: 'echo', parameters: {type: 'object'}}, (p) => p);`)
			for b.Loop() {
				p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
				if err != nil {
					b.Fatal(err)
				}
				_ = p.Close()
			}
		})
	}
}

// TestProcessIsolationConfined: a worker process can read its executable
// and the shared libraries (and /proc in a race build), and nothing else; it can write
// nothing and make no TCP connection (Landlock, inherited from the thread
// that starts it). The probe (testdata/probe) is started as a worker is.
func TestProcessIsolationConfined(t *testing.T) {
	v, err := landlock.Version()
	if err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if testing.Short() {
		t.Skip("builds a probe program")
	}
	probe := filepath.Join(t.TempDir(), "aios-probe-worker")
	build := exec.Command("go", "build", "-o", probe, "-ldflags", "-X main.addr="+ln.Addr().String(), "./testdata/probe")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the probe: %v\n%s", err, out)
	}
	var logs testutil.SyncBuffer
	rt := newRuntime(t, Options{Isolation: IsolationProcess, WorkerCommand: probe,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	_, err = rt.load(context.Background(), abi.Source{Path: writeSource(t, "p.js", `aios.registerTool({name: 'a'}, () => 1);`)}, abi.RuntimeJS)
	if err == nil {
		t.Fatal("the probe worker registered")
	}
	out := logs.String()
	want := map[string]string{
		"read /etc/hostname":     "permission denied",
		"list the temp folder":   "permission denied",
		"write a temp file":      "permission denied",
		"read /proc/self/status": "permission denied",
	}
	if proclimit.Race { // the race detector's runtime reads /proc/self/maps
		want["read /proc/self/status"] = "allowed"
	}
	if v >= 4 {
		want["dial tcp"] = "permission denied"
	}
	for what, outcome := range want {
		found := false
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "PROBE "+what+": ") {
				found = strings.Contains(line, outcome)
				break
			}
		}
		if !found {
			t.Errorf("%s: want %q; the worker said:\n%s", what, outcome, out)
		}
	}
}

// TestZeroResultsBothIsolations: a handler returning 0, "", false, [] or
// {} answers that value, not null, and a ctx.callTool result of one of
// them reaches the handler intact, in a worker process as in the host. The
// worker's MessagePack once dropped them (omitempty looked inside the
// value), so a worker tool answered null where the same tool in the host
// answered 0.
func TestZeroResultsBothIsolations(t *testing.T) {
	const src = `
aios.registerTool({name: 'zero', description: 'returns a zero value', parameters: {type: 'object'}},
  (p) => ({num: 0, str: '', f: false, arr: [], obj: {}})[p.k]);
aios.registerTool({name: 'relay', description: 'returns what a nested call answered', parameters: {type: 'object'}},
  async (p, ctx) => { const r = await ctx.callTool('peer', {k: p.k}); return {r, t: typeof r}; });
`
	zeros := map[string]any{"num": int64(0), "str": "", "f": false, "arr": []any{}, "obj": map[string]any{}}
	jsType := map[string]string{"num": "number", "str": "string", "f": "boolean", "arr": "object", "obj": "object"}
	for _, iso := range []string{IsolationProcess, IsolationInProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "zero.js", src)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			env.tools["peer"] = func(_ context.Context, params any) (any, error) {
				return zeros[params.(map[string]any)["k"].(string)], nil
			}
			for k, want := range zeros {
				got, err := callIsolated(t, p, env, "zero", map[string]any{"k": k}, 30*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("zero %s answered %#v, want %#v", k, got, want)
				}
				got, err = callIsolated(t, p, env, "relay", map[string]any{"k": k}, 30*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				if wantR := map[string]any{"r": want, "t": jsType[k]}; !reflect.DeepEqual(got, wantR) {
					t.Errorf("relay %s answered %#v, want %#v", k, got, wantR)
				}
			}
		})
	}
}

// TestLogFloodBounded: a provider printing in a loop reaches the log at
// most logLinesPerSecond lines a second (the warning about the rest goes
// to the provider's log), and a huge line is cut; in both isolations.
// (Unlimited before: 20 000 console.log lines were 6.5 MB of log, one
// 20 MB line a 20 MB record.)
func TestLogFloodBounded(t *testing.T) {
	const src = `
aios.registerTool({name: 'spam', description: 'prints', parameters: {type: 'object'}},
  (p) => { console.log('z'.repeat(1 << 20)); for (let i = 0; i < 5000; i++) console.log('spam ' + i); return 1; });
`
	for _, iso := range []string{IsolationProcess, IsolationInProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "spam.js", src)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			start := time.Now()
			if _, err := callIsolated(t, p, env, "spam", map[string]any{}, 30*time.Second); err != nil {
				t.Fatal(err)
			}
			// A loop that outlasts a second (under -race on a loaded
			// machine) gets a second window of the budget: allowed is a
			// window for each second the call took, and one more.
			windows := int(time.Since(start)/time.Second) + 1
			time.Sleep(200 * time.Millisecond) // records of a worker arrive over its pipe
			env.mu.Lock()
			defer env.mu.Unlock()
			if n := len(env.logs); n == 0 || n > windows*logLinesPerSecond+1 {
				t.Fatalf("%d log records for 5001 lines, want at most %d (%d a second, the call took under %d s)", n, windows*logLinesPerSecond, logLinesPerSecond, windows)
			}
			cut := false
			for _, l := range env.logs {
				if len(l) > maxLogLine+100 {
					t.Fatalf("a log record of %d bytes (cut at %d)", len(l), maxLogLine)
				}
				cut = cut || strings.Contains(l, "more bytes cut")
			}
			if !cut {
				t.Fatalf("the 1 MiB line is not among the records, cut: %.200q", env.logs)
			}
		})
	}
}
