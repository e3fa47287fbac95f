package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/js"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// TestLeakSoakRuntimes runs the conformance behaviours against a
// fresh host of every runtime several times, closing each host, and checks
// that goroutines, fds and child processes come back.
func TestLeakSoakRuntimes(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	fixturesMu.Lock()
	list := append([]fixture(nil), fixtures...)
	fixturesMu.Unlock()
	skip := map[string]bool{"concurrent-100": true, "payload-1mib": true}
	only := os.Getenv("PROBE_RUNTIME")
	for _, fx := range list {
		if only != "" && fx.Runtime != only {
			continue
		}
		t.Run(fx.Runtime, func(t *testing.T) {
			cycle := func(t *testing.T) {
				h := newHarnessHost(t)
				p, err := fx.Load(t)
				if err != nil {
					t.Skipf("load: %v", err)
				}
				if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "probe " + fx.Runtime, Trust: fx.Trust}); err != nil {
					_ = p.Close()
					t.Fatal(err)
				}
				for _, b := range behaviours {
					if _, na := fx.NotApplicable[b.name]; na || skip[b.name] {
						continue
					}
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					if fx.Names != nil {
						ctx = context.WithValue(ctx, namesKey{}, fx.Names)
					}
					if err := runBehaviour(ctx, h, b.run); err != nil {
						t.Errorf("%s: %v", b.name, err)
					}
					cancel()
				}
			}
			t.Run("warm", cycle)
			before := testutil.Settle(0, 2*time.Second)
			n := 2
			if v, err := strconv.Atoi(os.Getenv("PROBE_N")); err == nil {
				n = v
			}
			for i := 0; i < n; i++ {
				t.Run(fmt.Sprintf("c%d", i), cycle)
			}
			after := testutil.Settle(before.Goroutines, 5*time.Second)
			t.Logf("%s: before %v after %v", fx.Runtime, before, after)
			if after.Goroutines > before.Goroutines+2 || after.FDs > before.FDs+2 || after.Children > before.Children || after.Zombies > 0 {
				t.Errorf("%s: after %d closed hosts: %v, before: %v\n%s", fx.Runtime, n, after, before, testutil.GoroutineDump())
			}
		})
	}
}

// processRows are the fixtures whose providers run in processes of their
// own (the long-host soak runs them apart, to keep each test short).
var processRows = map[string]bool{"js@process": true, "ts@process": true, abi.RuntimeMCP: true, abi.RuntimePython: true}

// TestLeakLongHostInProcess and TestLeakLongHostProcesses run
// the failing behaviours (timeouts that interrupt the guest, crashes, tool
// errors, invalid params, cancelled contexts) on one host that stays open,
// replacing the provider every round and removing it at the end, as a host
// serving for hours does. After a warm-up (add, replace, remove), more
// rounds and a remove must leave what the warm-up left: what calls and
// replaced providers held does not pile up.
func TestLeakLongHostInProcess(t *testing.T) { probeLongHost(t, false) }

func TestLeakLongHostProcesses(t *testing.T) { probeLongHost(t, true) }

func probeLongHost(t *testing.T, processes bool) {
	if testing.Short() {
		t.Skip("soak")
	}
	fixturesMu.Lock()
	list := append([]fixture(nil), fixtures...)
	fixturesMu.Unlock()
	only := os.Getenv("PROBE_RUNTIME")
	pick := map[string]bool{"tool-error": true, "invalid-params": true, "timeout": true, "crash": true, "capability-denied": true}
	for _, fx := range list {
		if processRows[fx.Runtime] != processes || (only != "" && fx.Runtime != only) {
			continue
		}
		t.Run(fx.Runtime, func(t *testing.T) {
			h := newHarnessHost(t)
			ctx := context.Background()
			if fx.Names != nil {
				ctx = context.WithValue(ctx, namesKey{}, fx.Names)
			}
			load := probeSharedLoader(t, fx)
			var id string
			round := func() {
				p, err := load(t)
				if err != nil {
					t.Skipf("load: %v", err)
				}
				meta := host.ProviderMeta{Source: "probe " + fx.Runtime, Trust: fx.Trust}
				if id != "" && h.Registry().Provider(id) != nil {
					err = h.ReplaceProvider(ctx, p, meta)
				} else {
					err = h.AddProvider(ctx, p, meta)
				}
				if err != nil {
					_ = p.Close()
					t.Fatal(err)
				}
				id = p.Describe().Provider.ID
				for _, b := range behaviours {
					if _, na := fx.NotApplicable[b.name]; na || !pick[b.name] {
						continue
					}
					if err := runBehaviour(ctx, h, b.run); err != nil {
						t.Errorf("%s: %v", b.name, err)
					}
				}
				for i := 0; i < 2; i++ { // contexts cancelled mid-call
					cctx, cancel := context.WithCancel(ctx)
					go func() { time.Sleep(30 * time.Millisecond); cancel() }()
					_, _ = call(cctx, h, "tester", "sleep", map[string]any{"ms": int64(10_000)}, 0)
					cancel()
				}
			}
			remove := func() {
				if err := h.RemoveProvider(id); err != nil {
					t.Fatal(err)
				}
			}
			round()
			round()
			remove()
			before := testutil.Settle(0, 3*time.Second)
			n := 2
			if v, err := strconv.Atoi(os.Getenv("PROBE_N")); err == nil {
				n = v
			}
			for i := 0; i < n; i++ {
				round()
			}
			remove()
			time.Sleep(3 * time.Second) // as long as the warm-up's settle waited
			after := testutil.Settle(before.Goroutines, 5*time.Second)
			t.Logf("%s: after warm-up and remove %v; after %d more rounds and remove %v", fx.Runtime, before, n, after)
			if os.Getenv("PROBE_FDS") != "" {
				ents, _ := os.ReadDir("/proc/self/fd")
				for _, e := range ents {
					l, _ := os.Readlink("/proc/self/fd/" + e.Name())
					t.Logf("fd %s -> %s", e.Name(), l)
				}
			}
			if after.Goroutines > before.Goroutines+2 || after.FDs > before.FDs+2 || after.Children > before.Children || after.Zombies > 0 ||
				after.Heap > before.Heap+4<<20 {
				t.Errorf("%s: after %d more rounds: %v, after the warm-up: %v\n%s", fx.Runtime, n, after, before, testutil.GoroutineDump())
			}
		})
	}
}

// probeSharedLoader returns fx.Load, or for the rows whose fixture makes a
// runtime per load (js, ts, wasm), a load through one runtime made once,
// as a host has: one runtime, many providers.
func probeSharedLoader(t *testing.T, fx fixture) func(*testing.T) (abi.Provider, error) {
	root := testutil.RepoRoot(t)
	switch fx.Runtime {
	case abi.RuntimeJS, abi.RuntimeTS, abi.RuntimeJS + "@process", abi.RuntimeTS + "@process":
		iso := js.IsolationInProcess
		if strings.HasSuffix(fx.Runtime, "@process") {
			iso = js.IsolationProcess
		}
		rtName, file := abi.RuntimeJS, "conformance.js"
		if strings.HasPrefix(fx.Runtime, abi.RuntimeTS) {
			rtName, file = abi.RuntimeTS, "conformance.ts"
		}
		rt := js.New(js.Options{Isolation: iso})
		t.Cleanup(func() { _ = rt.Close() })
		for _, l := range rt.Loaders() {
			if l.Runtime() == rtName {
				return func(*testing.T) (abi.Provider, error) {
					return l.Load(context.Background(), abi.Source{Path: filepath.Join(root, "samples", "js", file)})
				}
			}
		}
	case abi.RuntimeWASM, abi.RuntimeWASM + "@wasmtime":
		path, err := artifact(t, "wasm/conformance.wasm")
		if err != nil {
			t.Skip(err)
		}
		engine := ""
		if strings.HasSuffix(fx.Runtime, "@wasmtime") {
			engine = wasm.EngineWasmtime
		}
		l, err := wasm.NewEngineLoader(engine, wasm.Options{Config: wasm.Config{Clock: "real", CacheDir: wasmCacheDir()}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.(interface{ Close() error }).Close() })
		return func(*testing.T) (abi.Provider, error) { return l.Load(context.Background(), abi.Source{Path: path}) }
	}
	return fx.Load
}

// TestLeakWorkersKilled kills the worker processes of the process
// runtimes (python, js@process) from outside, again and again, between and
// during calls: the runtime starts new ones, reaps the dead (no zombies)
// and, once the host is closed, leaves no worker behind.
func TestLeakWorkersKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	fixturesMu.Lock()
	list := append([]fixture(nil), fixtures...)
	fixturesMu.Unlock()
	for _, fx := range list {
		if fx.Runtime != abi.RuntimePython && fx.Runtime != "js@process" {
			continue
		}
		t.Run(fx.Runtime, func(t *testing.T) {
			base := testutil.Settle(0, 2*time.Second)
			t.Run("run", func(t *testing.T) { // its cleanups close the host and the runtime
				h := newHarnessHost(t)
				load := probeSharedLoader(t, fx)
				p, err := load(t)
				if err != nil {
					t.Skipf("load: %v", err)
				}
				if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "probe", Trust: fx.Trust}); err != nil {
					_ = p.Close()
					t.Fatal(err)
				}
				ctx := context.Background()
				maxKids := 0
				for i := 0; i < 8; i++ {
					if _, err := call(ctx, h, "tester", "echo", map[string]any{"value": i}, 0); err != nil {
						t.Errorf("round %d: echo: %v", i, err)
					}
					// one kill during a call, one between calls
					done := make(chan struct{})
					go func() {
						defer close(done)
						_, _ = call(ctx, h, "tester", "sleep", map[string]any{"ms": int64(300)}, 0)
					}()
					time.Sleep(100 * time.Millisecond)
					kids := livePIDs()
					maxKids = max(maxKids, len(kids))
					if pp, ok := p.(interface{ PID() int }); ok {
						// the worker only, not the runtime's bundler
						// (killed idle, it is reaped at its next use
						// or after 30 s idle: bounded)
						kids = []int{pp.PID()}
					}
					for _, pid := range kids {
						_ = testutil.Kill(pid)
					}
					<-done
					// A worker killed from outside is seen dead once
					// reaped: calls made at the same instant may still
					// meet it (ProviderCrashed), later ones must not.
					// Reaping takes its time on a loaded machine (a
					// fixed 50 ms wait failed in a clean-clone run):
					// wait for each killed worker to be reaped (a
					// zombie still answers kill 0).
					for _, pid := range kids {
						for end := time.Now().Add(5 * time.Second); testutil.Alive(pid) && time.Now().Before(end); {
							time.Sleep(5 * time.Millisecond)
						}
					}
					time.Sleep(20 * time.Millisecond)
				}
				if _, err := call(ctx, h, "tester", "echo", map[string]any{"value": "last"}, 0); err != nil {
					t.Errorf("after the kills: %v", err)
				}
				// A worker started in place of a killed one, or one being
				// reaped, can be counted for a moment on a loaded machine
				// (4 children against 3 once in a probe's run): the counts
				// must settle within the bound, not hold at one instant.
				s := testutil.TakeResources()
				for end := time.Now().Add(5 * time.Second); (s.Zombies > 0 || s.Children > maxKids) && time.Now().Before(end); s = testutil.TakeResources() {
					time.Sleep(50 * time.Millisecond)
				}
				t.Logf("%s: while open after kills: %v (at most %d children seen)", fx.Runtime, s, maxKids)
				if s.Zombies > 0 {
					t.Errorf("%d defunct workers while the host runs", s.Zombies)
				}
				if s.Children > maxKids {
					t.Errorf("%d live children, more than the %d of one round", s.Children, maxKids)
				}
				if err := h.RemoveProvider(p.Describe().Provider.ID); err != nil {
					t.Error(err)
				}
			})
			after := testutil.Settle(base.Goroutines, 5*time.Second)
			t.Logf("%s: base %v after %v", fx.Runtime, base, after)
			if after.Children > base.Children || after.Zombies > 0 || after.Goroutines > base.Goroutines+3 || after.FDs > base.FDs+3 {
				t.Errorf("after the host and runtime were closed: %v (base %v)\n%s", after, base, testutil.GoroutineDump())
			}
		})
	}
}

// TestLeakMCPServerKilled kills the bridged MCP server process from
// outside, again and again: the bridge must reap it (no zombie), and
// closing the bridge must leave no process, goroutine or fd behind.
func TestLeakMCPServerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	var fx fixture
	fixturesMu.Lock()
	for _, f := range fixtures {
		if f.Runtime == abi.RuntimeMCP {
			fx = f
		}
	}
	fixturesMu.Unlock()
	base := testutil.Settle(0, 2*time.Second)
	t.Run("run", func(t *testing.T) {
		h := newHarnessHost(t)
		p, err := fx.Load(t)
		if err != nil {
			t.Skipf("load: %v", err)
		}
		if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "probe", Trust: fx.Trust}); err != nil {
			_ = p.Close()
			t.Fatal(err)
		}
		ctx := context.WithValue(context.Background(), namesKey{}, fx.Names)
		for i := 0; i < 5; i++ {
			_, err := call(ctx, h, "tester", "echo", map[string]any{"value": i}, 5*time.Second)
			t.Logf("round %d: echo: %v", i, err)
			for _, pid := range livePIDs() {
				_ = testutil.Kill(pid)
			}
			time.Sleep(300 * time.Millisecond)
			s := testutil.TakeResources()
			if s.Zombies > 0 {
				t.Errorf("round %d: %d defunct server processes after a kill", i, s.Zombies)
			}
		}
		_, err = call(ctx, h, "tester", "echo", map[string]any{"value": "last"}, 5*time.Second)
		t.Logf("after the kills: echo: %v (snapshot %v)", err, testutil.TakeResources())
	})
	after := testutil.Settle(base.Goroutines, 5*time.Second)
	t.Logf("base %v after %v", base, after)
	if after.Children > base.Children || after.Zombies > 0 || after.Goroutines > base.Goroutines+2 || after.FDs > base.FDs+2 {
		t.Errorf("after the bridge was closed: %v (base %v)\n%s", after, base, testutil.GoroutineDump())
	}
}

// livePIDs lists the live child processes of this process.
func livePIDs() []int {
	live, _ := testutil.Children()
	return live
}
