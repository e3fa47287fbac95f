// Package precompile keeps a slow WebAssembly compilation out of the host
// process.
//
// wazero's compiler takes time that grows, per function, with its
// control-flow nodes times its nodes plus locals (instrument.Measure has
// the figures): a 400 KB module of one function with 100 000 nested blocks
// compiles in 50 s, and a compilation cannot be interrupted. A plugin dropped into a
// folder must not be able to hold the host's loader for that long, so
// before compiling a module the loaders call Check. A module whose
// measured cost is small (every real module seen so far: the Go guests'
// largest function has 1 900 nodes) is compiled in the host at once. Any
// other is first compiled by a compiler process, the host's own executable
// started with Env set (any program linked with this package becomes one,
// before main runs), which writes the compiled code to wazero's file cache.
// The host then compiles the module itself and finds it in the cache, or
// when it has no cache directory compiles it again, knowing it finishes.
// A compiler process that runs past the timeout is killed, and the load
// fails with an error naming the module, the timeout and its costliest
// function.
package precompile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/aios-host/aios-host/internal/proclimit"
	"github.com/aios-host/aios-host/internal/sealed"
	"github.com/aios-host/aios-host/runtimes/wasm/instrument"
)

// Env makes a program linked with this package a compiler process.
const Env = "AIOS_WASM_COMPILER"

// The compiler process's settings, in its environment.
const (
	envCache    = "AIOS_WASM_COMPILER_CACHE"
	envChecks   = "AIOS_WASM_COMPILER_CHECKS"
	envFeatures = "AIOS_WASM_COMPILER_FEATURES"
)

// Defaults.
const (
	// DefaultTimeout bounds a compiler process.
	DefaultTimeout = 30 * time.Second
	// DefaultWorkBudget is the largest instrument.Cost.Work compiled in the
	// host without a compiler process: one function of 10 000 nodes (1.4 s
	// to compile here), or of 1 000 nodes and 100 000 locals. The Go
	// guests measure 4–5 × 10⁷.
	DefaultWorkBudget = 100_000_000
	// DefaultCodeBudget is the largest code section compiled in the host
	// without a compiler process. Compile time also grows with size, about
	// 0.5 s per MB here; the Go guests' code sections are 2–3 MB.
	DefaultCodeBudget = 8 << 20
	// compilerMemory bounds what a compiler process may map for data
	// beyond what it has when it starts.
	compilerMemory = 4 << 30
	// maxReply bounds the compiler's answer.
	maxReply = 64 << 10
)

// Options describe the compilation the host is about to do; a compiler
// process must do the same one for its cache entry to be the one the host
// looks up (wazero's key is the module's bytes, whether termination checks
// are compiled in, and the CPU's features).
type Options struct {
	// CacheDir is the host's wazero file cache ("" when it has none).
	CacheDir string
	// CloseOnContextDone is the runtime's WithCloseOnContextDone.
	CloseOnContextDone bool
	// Features are the runtime's core features (0: wazero's default).
	Features api.CoreFeatures
	// Timeout bounds the compiler process (0: DefaultTimeout).
	Timeout time.Duration
	// WorkBudget and CodeBudget bound what is compiled in the host at
	// once (0: the defaults).
	WorkBudget uint64
	CodeBudget int
	// Source is the module as its author wrote it, when the loader
	// compiles a rewrite of it (instrumented): the timeout error describes
	// Source's functions, whose indices the author knows. Default: bin.
	Source []byte
}

// ErrTimeout is wrapped by Check's error when the compiler process ran
// past its timeout.
var ErrTimeout = errors.New("compilation timed out")

// CompileError is Check's error when the compiler process refused the
// module: the module is not valid WebAssembly (for this runtime's
// features), as an in-process compile would have said.
type CompileError struct{ Msg string }

func (e *CompileError) Error() string { return e.Msg }

// spawned counts compiler processes started.
var spawned atomic.Int64

// Spawned returns the number of compiler processes this process has
// started.
func Spawned() int64 { return spawned.Load() }

// Check returns nil when bin may be compiled in the calling process:
// either its cost is small, or a compiler process compiled it (and filled
// the cache) within the timeout. Otherwise it returns why not: ErrTimeout,
// a *CompileError, the context's error, or a failure of the compiler
// process. name names the module in messages.
func Check(ctx context.Context, name string, bin []byte, o Options) error {
	cost, merr := instrument.Measure(bin)
	work, code := o.WorkBudget, o.CodeBudget
	if work == 0 {
		work = DefaultWorkBudget
	}
	if code == 0 {
		code = DefaultCodeBudget
	}
	if merr == nil && cost.Work <= work && cost.CodeBytes <= code {
		return nil
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	err := compileInChild(ctx, bin, o, timeout)
	if errors.Is(err, ErrTimeout) {
		why := "its cost could not be measured"
		switch {
		case merr != nil:
			why += " (" + merr.Error() + ")"
		case cost.Work > work:
			if o.Source != nil {
				if sc, err := instrument.Measure(o.Source); err == nil {
					cost = sc
				}
			}
			why = fmt.Sprintf("its function %d has %d control-flow nodes and %d locals, and the compiler's time grows with nodes × (nodes + locals)", cost.MaxFunc, cost.MaxNodes, cost.MaxLocals)
		default:
			why = fmt.Sprintf("its code section is %d bytes", cost.CodeBytes)
		}
		return fmt.Errorf("%s: compiling it took longer than %v (runtimes.wasm.compile_timeout), so it was stopped: %s: %w", name, timeout, why, err)
	}
	if err != nil && !errors.As(err, new(*CompileError)) {
		return fmt.Errorf("%s: %w", name, err)
	}
	return err
}

// compileInChild runs a compiler process on bin.
func compileInChild(ctx context.Context, bin []byte, o Options, timeout time.Duration) error {
	exe, err := proclimit.Self()
	if err != nil {
		return fmt.Errorf("cannot find the executable to run the WASM compiler: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, exe)
	cmd.Env = []string{
		Env + "=1", "GOTRACEBACK=single",
		envCache + "=" + o.CacheDir,
		envChecks + "=" + strconv.FormatBool(o.CloseOnContextDone),
		envFeatures + "=" + strconv.FormatUint(uint64(o.Features), 10),
	}
	cmd.Stdin = bytes.NewReader(bin)
	out, stderr := &proclimit.Output{Max: maxReply}, &proclimit.Output{Max: 16 << 10}
	cmd.Stdout, cmd.Stderr = out, stderr
	cmd.WaitDelay = time.Second
	spawned.Add(1)
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case cctx.Err() != nil:
		return ErrTimeout
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 && len(msg) > 2000 {
			msg = msg[:1000] + " … " + msg[i+1:]
		}
		if msg == "" {
			return fmt.Errorf("the WASM compiler process failed: %w", err)
		}
		return fmt.Errorf("the WASM compiler process failed: %w: %s", err, msg)
	}
	reply := out.String()
	if reply == "ok\n" {
		return nil
	}
	if m, ok := strings.CutPrefix(reply, "error: "); ok {
		return &CompileError{Msg: strings.TrimSuffix(m, "\n")}
	}
	return fmt.Errorf("the WASM compiler process answered %q", reply)
}

func init() {
	if os.Getenv(Env) == "1" {
		if !proclimit.Race { // the race detector's shadow memory fails under the limit
			if err := proclimit.LimitData(compilerMemory); err != nil {
				fmt.Fprintln(os.Stderr, "aios wasm compiler: no memory limit:", err)
			}
		}
		// The compiler's garbage is thrown away with the process.
		debug.SetGCPercent(400)
		go exitWithParent()
		os.Exit(serve(os.Stdin, os.Stdout))
	}
}

// serve is the compiler process: it compiles the module on in with the
// settings in its environment and writes "ok" or "error: …" to out.
func serve(in io.Reader, out io.Writer) int {
	bin, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aios wasm compiler: reading the module:", err)
		return 2
	}
	features, _ := strconv.ParseUint(os.Getenv(envFeatures), 10, 64)
	cfg := wazero.NewRuntimeConfig().WithCloseOnContextDone(os.Getenv(envChecks) == "true")
	if features != 0 {
		cfg = cfg.WithCoreFeatures(api.CoreFeatures(features))
	}
	ctx := context.Background()
	err = errors.New("no cache")
	if dir := os.Getenv(envCache); dir != "" {
		// The cache is an optimisation: when compiling through it fails
		// (a corrupt entry, a full disk), the module is judged by a
		// compilation without it, and the host falls back the same way.
		// Entries are sealed (internal/sealed.CheckWazero, which the
		// host ran before starting this process): the new one is sealed
		// here, else the host would remove it and compile the module
		// again itself.
		// Until then, the new entry is marked as being written
		// (sealed.BeginWazero), so that the host's loaders do not take
		// it for a damaged one.
		end := sealed.BeginWazero(dir)
		var cache wazero.CompilationCache
		if cache, err = wazero.NewCompilationCacheWithDir(dir); err == nil {
			defer cache.Close(ctx)
			if err = compile(ctx, cfg.WithCompilationCache(cache), bin); err == nil {
				sealed.SealWazero(dir)
			}
		}
		end()
	}
	if err != nil {
		err = compile(ctx, cfg, bin)
	}
	reply := "ok\n"
	if err != nil {
		reply = "error: " + strings.ReplaceAll(err.Error(), "\n", " ") + "\n"
	}
	if _, err := io.WriteString(out, reply); err != nil {
		return 2
	}
	return 0
}

// compile compiles bin on a runtime with cfg.
func compile(ctx context.Context, cfg wazero.RuntimeConfig, bin []byte) error {
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	defer rt.Close(ctx)
	_, err := rt.CompileModule(ctx, bin)
	return err
}

// exitWithParent ends the compiler when the host that started it is gone
// (it is then adopted by another process).
func exitWithParent() {
	parent := os.Getppid()
	for range time.Tick(200 * time.Millisecond) {
		if os.Getppid() != parent {
			os.Exit(3)
		}
	}
}
