package js

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/proclimit"
	"github.com/dop251/goja"
)

// Bundling in a process of its own. esbuild and goja's parser are
// recursive-descent parsers without a nesting limit, and esbuild has
// inputs on which it runs for minutes:
//
//   - `[[[[…]]]]` or `!!!!…1` a few hundred thousand levels deep (a file of
//     a few hundred KB) overflows the goroutine stack, which is a fatal
//     error of the whole process, not a panic that can be recovered;
//   - 1000 nested arrow functions `a=>a=>…` (3 KB) take esbuild 4 s, 2000
//     take 30–40 s, and the time grows about eightfold with each doubling;
//     a build cannot be interrupted.
//
// A provider file dropped into a plugin folder must not be able to end or
// stall the host, so the host never runs esbuild itself: it keeps a
// bundler process, its own executable started with bundlerEnv set (any
// program linked with this package becomes a bundler then, before main
// runs, as it becomes a JS worker with workerEnv), sends it paths and reads
// bundles back. The bundler's stack is capped (bundlerMaxStack) and its
// memory too (bundlerMemory). The host kills it when a request takes longer
// than Options.BundleTimeout, and starts a new one for the next load after
// it died or was killed; one idle for bundlerIdle exits. For a provider
// that will run in the host process, the bundler also compiles the bundle
// with goja, so that the host's own compile of it (for its program and its
// error messages) cannot overflow either: the host's stack limit is four
// times the bundler's. Cost: one process start for the first load after
// start-up or idleness, then a pipe round trip per load
// (BenchmarkTranspileTS200/load against /in-process).

// bundlerEnv makes a program linked with this package a bundler.
const bundlerEnv = "AIOS_JS_BUNDLER"

// bundlerMaxStack is the bundler's goroutine stack limit: well above what
// real code needs (esbuild handled 100 000 nested arrays in it), and a
// quarter of the Go default the host runs with.
const bundlerMaxStack = 256 << 20

// bundlerMemory bounds what the bundler may map for data (its stack
// included) beyond what it has when it starts.
const bundlerMemory = 1 << 30

// maxBundleReply bounds the bundler's answer (the bundle and its inline
// source map).
const maxBundleReply = 256 << 20

type bundleRequest struct {
	Path string `json:"path"`
	// Pins is abi.Source.Pinned (nil: unsigned).
	Pins map[string]string `json:"pins,omitempty"`
	// Compile asks the bundler to compile the bundle with goja too.
	Compile bool `json:"compile"`
	// Alone: the provider is a file at the top of a plugin folder, which
	// may import no other file (bundleWith).
	Alone bool `json:"alone,omitempty"`
}

type bundleReply struct {
	Code       string `json:"code"`
	Name       string `json:"name"`
	Decorators string `json:"decorators"`
	Error      string `json:"error,omitempty"`
	Syntax     bool   `json:"syntax,omitempty"` // Error is a *SyntaxError
}

func init() {
	if os.Getenv(bundlerEnv) == "1" {
		debug.SetMaxStack(bundlerMaxStack)
		// Not with the race detector: its shadow of a large stack is
		// mapped on demand, and fails under the limit.
		if !proclimit.Race {
			if err := proclimit.LimitData(bundlerMemory); err != nil {
				fmt.Fprintln(os.Stderr, "aios js bundler: no memory limit:", err)
			}
		}
		os.Exit(serveBundle(os.Stdin, os.Stdout))
	}
}

// bundlerIdle is how long a bundler process waits for the next request
// before the host ends it.
const bundlerIdle = 30 * time.Second

// serveBundle serves the requests of a bundler process, one
// length-prefixed JSON frame each way, until its input ends, and returns
// the process's exit code. A bundling error is an answer, not a failure.
func serveBundle(in io.Reader, out io.Writer) int {
	for {
		frame, err := abi.ReadFrame(in, 16<<20)
		if err == io.EOF {
			return 0
		}
		var req bundleRequest
		if err == nil {
			err = json.Unmarshal(frame, &req)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "aios js bundler: bad request:", err)
			return 2
		}
		var rep bundleReply
		b, err := bundleWith(req.Path, req.Pins, req.Alone)
		if err == nil {
			rep.Code, rep.Name, rep.Decorators = b.Code, b.Name, b.Decorators
			if req.Compile {
				// Only to prove it can be done here; a syntax error is
				// reported by the host's own compile, with positions.
				_, _ = goja.Compile(b.Name, b.Code, false)
			}
		} else {
			rep.Error = err.Error()
			rep.Syntax = errors.As(err, new(*SyntaxError))
		}
		data, err := json.Marshal(&rep)
		if err == nil {
			err = abi.WriteFrame(out, data)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "aios js bundler:", err)
			return 2
		}
	}
}

// bundlerProc is a running bundler process.
type bundlerProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *proclimit.Output
	once   sync.Once
	err    error // Wait's result, once waited for
}

// startBundler starts a bundler process.
func startBundler() (*bundlerProc, error) {
	exe, err := proclimit.Self()
	if err != nil {
		return nil, fmt.Errorf("cannot find the executable to run the JS bundler: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = []string{bundlerEnv + "=1", "GOTRACEBACK=single"}
	cmd.SysProcAttr = workerProcAttr()
	bp := &bundlerProc{cmd: cmd, stderr: &proclimit.Output{Max: 16 << 10}}
	cmd.Stderr = bp.stderr
	if bp.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	bp.out = bufio.NewReaderSize(out, 64<<10)
	if _, err := startWorker(cmd, false); err != nil {
		return nil, fmt.Errorf("cannot start the JS bundler (%s): %w", exe, err)
	}
	return bp, nil
}

// kill ends the process and waits for it.
func (bp *bundlerProc) kill() {
	_ = bp.cmd.Process.Kill()
	bp.wait()
}

// wait waits for the process to exit and records why (once; concurrent
// callers all return after it).
func (bp *bundlerProc) wait() {
	bp.once.Do(func() { bp.err = bp.cmd.Wait() })
}

// crashError explains a bundler that died during a request.
func (bp *bundlerProc) crashError() error {
	msg := strings.TrimSpace(bp.stderr.String())
	if strings.Contains(msg, "stack overflow") || strings.Contains(msg, "stack exceeds") {
		what := "esbuild"
		if strings.Contains(msg, "dop251/goja") {
			what = "goja"
		}
		return fmt.Errorf("%s ran out of stack parsing it: the source nests expressions or blocks too deeply", what)
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Errorf("the JS bundler process failed (%v): %s", bp.err, msg)
}

// bundle bundles the provider at path in the bundler process, starting
// one if none runs. compile says the host will compile the bundle in its
// own process. Loads bundle one at a time.
func (r *Runtime) bundle(ctx context.Context, path string, pins map[string]string, compile bool) (*bundled, error) {
	return r.bundleFor(ctx, path, pins, compile, false)
}

// bundleFor is bundle; alone says path is a file at the top of a plugin
// folder, which may import no other file (bundleWith).
func (r *Runtime) bundleFor(ctx context.Context, path string, pins map[string]string, compile, alone bool) (*bundled, error) {
	abs, err := filepath.Abs(path) // the bundler keeps the working directory it started in
	if err != nil {
		return nil, err
	}
	req, err := json.Marshal(bundleRequest{Path: abs, Pins: pins, Compile: compile, Alone: alone})
	if err != nil {
		return nil, err
	}
	r.bmu.Lock()
	defer r.bmu.Unlock()
	if r.bidle != nil {
		r.bidle.Stop()
	}
	if r.closed.Load() {
		return nil, errors.New("the JS runtime is closed")
	}
	// A bundler process found dead (killed from outside, or ended by
	// an earlier request) is replaced and the request sent again, once: a
	// file that kills the bundler itself fails on the second try too.
	var a bundleAnswer
	for attempt := 0; ; attempt++ {
		bp := r.bproc
		if bp == nil {
			if bp, err = startBundler(); err != nil {
				return nil, err
			}
			r.bproc = bp
		}
		var done bool
		if a, done, err = r.exchange(ctx, bp, req, abs); done {
			return nil, err
		}
		if a.err == nil {
			break
		}
		r.dropBundler()
		if attempt == 1 {
			return nil, bp.crashError()
		}
	}
	r.armBundlerIdle()
	var rep bundleReply
	if err := json.Unmarshal(a.data, &rep); err != nil {
		return nil, fmt.Errorf("the JS bundler's answer is malformed: %w", err)
	}
	if rep.Syntax {
		return nil, &SyntaxError{Msg: rep.Error}
	}
	if rep.Error != "" {
		return nil, errors.New(rep.Error)
	}
	return &bundled{Code: rep.Code, Name: rep.Name, Decorators: rep.Decorators}, nil
}

type bundleAnswer struct {
	data []byte
	err  error
}

// exchange sends req to bp and reads its answer, under the bundle timeout
// and ctx; done reports that the bundle failed for good (err says why).
// r.bmu is held.
func (r *Runtime) exchange(ctx context.Context, bp *bundlerProc, req []byte, path string) (a bundleAnswer, done bool, err error) {
	got := make(chan bundleAnswer, 1)
	go func() {
		if err := abi.WriteFrame(bp.in, req); err != nil {
			got <- bundleAnswer{nil, err}
			return
		}
		data, err := abi.ReadFrame(bp.out, maxBundleReply)
		got <- bundleAnswer{data, err}
	}()
	timer := time.NewTimer(r.opts.BundleTimeout)
	defer timer.Stop()
	select {
	case a = <-got:
		return a, false, nil
	case <-timer.C:
		r.dropBundler()
		<-got
		return a, true, fmt.Errorf("esbuild did not finish bundling it within %v (runtimes.js.bundle_timeout); %s"+
			"deeply nested arrow functions make it take minutes", r.opts.BundleTimeout, largeFileHint(path))
	case <-ctx.Done():
		r.dropBundler()
		<-got
		return a, true, ctx.Err()
	}
}

// largeFileHint says, for a provider whose file is large, that bundling
// it takes time of its own: the timeout's error spoke of nested arrow
// functions alone, and a 5 MB file of plain declarations, which takes
// esbuild seconds, was left with a hint about code it did not have
// (TestBundleTimeoutNamesLargeFile).
func largeFileHint(path string) string {
	entry, err := entryFile(path)
	if err != nil {
		return ""
	}
	st, err := os.Stat(entry)
	if err != nil || st.Size() < 1<<20 {
		return ""
	}
	return fmt.Sprintf("%s is %.1f MB: a file that large takes esbuild seconds, raise the key for it; ", filepath.Base(entry), float64(st.Size())/(1<<20))
}

// dropBundler kills the bundler process, if any (r.bmu held).
func (r *Runtime) dropBundler() {
	if r.bproc != nil {
		r.bproc.kill()
		r.bproc = nil
	}
}

// armBundlerIdle ends the bundler process after bundlerIdle without a
// request (r.bmu held).
func (r *Runtime) armBundlerIdle() {
	bp := r.bproc
	r.bidle = time.AfterFunc(r.bundlerIdle(), func() {
		r.bmu.Lock()
		defer r.bmu.Unlock()
		if r.bproc == bp {
			_ = bp.in.Close() // it exits at the end of its input
			bp.wait()
			r.bproc = nil
		}
	})
}

func (r *Runtime) bundlerIdle() time.Duration {
	if r.testBundlerIdle > 0 {
		return r.testBundlerIdle
	}
	return bundlerIdle
}

// closeBundler ends the bundler process (Close).
func (r *Runtime) closeBundler() {
	r.bmu.Lock()
	defer r.bmu.Unlock()
	if r.bidle != nil {
		r.bidle.Stop()
	}
	if bp := r.bproc; bp != nil {
		_ = bp.in.Close()
		done := make(chan struct{})
		go func() { bp.wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Second):
			bp.kill()
		}
		r.bproc = nil
	}
}
