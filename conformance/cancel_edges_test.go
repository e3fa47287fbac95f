package conformance

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// renamed serves a conformance provider's tools under "<prefix>-<tool>",
// so that the providers of several runtimes (which all offer echo, sleep,
// nested, …) can be loaded into one host and chained.
type renamed struct {
	abi.Provider
	prefix string
}

func (r *renamed) Describe() *abi.ToolRegister {
	d := *r.Provider.Describe()
	d.Tools = append([]abi.ToolDef(nil), d.Tools...)
	for i := range d.Tools {
		d.Tools[i].Name = r.prefix + "-" + d.Tools[i].Name
	}
	return &d
}

func (r *renamed) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (any, error) {
	c := *call
	c.Tool = strings.TrimPrefix(c.Tool, r.prefix+"-")
	return r.Provider.Call(ctx, &c, env)
}

func (r *renamed) KeepsDeadlines() bool {
	k, ok := r.Provider.(abi.DeadlineKeeper)
	return ok && k.KeepsDeadlines()
}

func fixtureOf(t *testing.T, runtime string) fixture {
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	for _, f := range fixtures {
		if f.Runtime == runtime {
			return f
		}
	}
	t.Fatalf("no fixture %s", runtime)
	return fixture{}
}

// chainHost loads the conformance providers of runtimes into one harness
// host, each renamed to its runtime's name (the MCP one keeps its
// mcp-conformance- names), and records every call's stats.
func chainHost(t *testing.T, runtimes ...string) (*host.Host, func() []host.CallStats) {
	h := newHarnessHost(t)
	for _, rt := range runtimes {
		fx := fixtureOf(t, rt)
		p, err := fx.Load(t)
		if err != nil {
			t.Fatalf("loading %s: %v", rt, err)
		}
		if rt != abi.RuntimeMCP {
			p = &renamed{Provider: p, prefix: strings.ReplaceAll(rt, "@", "-")}
		}
		if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "probe " + rt, Trust: fx.Trust}); err != nil {
			_ = p.Close()
			t.Fatalf("adding %s: %v", rt, err)
		}
	}
	var mu sync.Mutex
	var stats []host.CallStats
	remove := h.OnCall(func(s host.CallStats) {
		mu.Lock()
		stats = append(stats, s)
		mu.Unlock()
	})
	t.Cleanup(remove)
	return h, func() []host.CallStats {
		mu.Lock()
		defer mu.Unlock()
		return append([]host.CallStats(nil), stats...)
	}
}

// nestChain builds the params of a call of tools[0] (a nested tool) that
// calls tools[1], …, and at last leaf with leafParams.
func nestChain(tools []string, leaf string, leafParams map[string]any) map[string]any {
	p := map[string]any{"tool": leaf, "params": leafParams}
	for i := len(tools) - 1; i >= 1; i-- {
		p = map[string]any{"tool": tools[i], "params": p}
	}
	return p
}

// TestChainDeadlineReachesInnermost: a chain wasm → js → python →
// mcp sleep under a 2 s deadline ends with Timeout by about then, and
// every level's call ends too (none runs on with a fresh deadline).
func TestChainDeadlineReachesInnermost(t *testing.T) {
	for _, order := range [][]string{
		{abi.RuntimeWASM, abi.RuntimeJS, abi.RuntimePython},
		{abi.RuntimePython, abi.RuntimeJS + "@process", abi.RuntimeWASM},
		{"component", abi.RuntimeTS, abi.RuntimeNative},
	} {
		t.Run(strings.Join(order, "-"), func(t *testing.T) {
			h, stats, call := sleepChain(t, order)
			start := time.Now()
			call.Deadline = start.Add(2 * time.Second)
			_, err := h.Call(context.Background(), call)
			took := time.Since(start)
			if code := abi.CodeOf(err); code != abi.Timeout && code != abi.Cancelled {
				t.Fatalf("chain: want Timeout, got %v", err)
			}
			if took > 4500*time.Millisecond {
				t.Errorf("chain under a 2 s deadline returned after %v", took)
			}
			checkChainEnded(t, stats, len(order)+1, 4500*time.Millisecond, "a chain that timed out at 2 s")
		})
	}
}

// TestChainCancelReachesInnermost: cancelling the outer call's
// context ends every level of the chain promptly, each recorded as not ok.
func TestChainCancelReachesInnermost(t *testing.T) {
	for _, order := range [][]string{
		{abi.RuntimeWASM, abi.RuntimeJS, abi.RuntimePython},
		{abi.RuntimePython, abi.RuntimeJS + "@process", abi.RuntimeWASM},
		{abi.RuntimeJS, abi.RuntimeWASM},
		{"component", abi.RuntimeNative, abi.RuntimeTS + "@process"},
	} {
		t.Run(strings.Join(order, "-"), func(t *testing.T) {
			h, stats, call := sleepChain(t, order)
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(1500*time.Millisecond, cancel)
			start := time.Now()
			_, err := h.Call(ctx, call)
			took := time.Since(start)
			if code := abi.CodeOf(err); code != abi.Cancelled {
				t.Errorf("chain: want Cancelled, got %v", err)
			}
			if took > 4*time.Second {
				t.Errorf("chain cancelled at 1.5 s returned after %v", took)
			}
			checkChainEnded(t, stats, len(order)+1, 4*time.Second, "a chain cancelled at 1.5 s")
		})
	}
}

// sleepChain is a host with order's runtimes' nested tools and the MCP
// row's, and the call of the first nested tool that nests through the
// others down to the MCP sleep of 600 s.
func sleepChain(t *testing.T, order []string) (*host.Host, func() []host.CallStats, *abi.ToolCall) {
	h, stats := chainHost(t, append(append([]string(nil), order...), abi.RuntimeMCP)...)
	var nest []string
	for _, rt := range order {
		nest = append(nest, strings.ReplaceAll(rt, "@", "-")+"-nested")
	}
	params := nestChain(nest, "mcp-conformance-sleep", map[string]any{"ms": 600000})
	return h, stats, &abi.ToolCall{Caller: "tester", Tool: nest[0], Params: params}
}

// checkChainEnded waits for the n records of a chain that ended early
// (what) and checks that each failed and none ran longer than limit: no
// level ran on with a fresh deadline.
func checkChainEnded(t *testing.T, stats func() []host.CallStats, n int, limit time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(8 * time.Second)
	for len(stats()) < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	got := stats()
	if len(got) != n {
		t.Fatalf("%d call records, want %d: %+v", len(got), n, got)
	}
	for _, s := range got {
		if s.Code == "" {
			t.Errorf("call %s (depth %d) succeeded inside %s", s.Tool, s.Depth, what)
		}
		if s.Latency > limit {
			t.Errorf("call %s (depth %d, %s) ran %v inside %s", s.Tool, s.Depth, s.Code, s.Latency, what)
		}
		t.Logf("%s depth %d: %s after %v", s.Tool, s.Depth, s.Code, s.Latency)
	}
}

// TestCloseUnderCall: a provider closed (host.RemoveProvider, an
// embedder's hot swap, host.Close) while a call of it is in flight still
// ends that call by its deadline (the runtime may let it finish, or stop
// it; ending it is not a ProviderCrashed: nothing crashed), and a call
// reaching it after Close (looked up just before the swap) fails clearly:
// no panic, no hang, no success.
func TestCloseUnderCall(t *testing.T) {
	fixturesMu.Lock()
	list := append([]fixture(nil), fixtures...)
	fixturesMu.Unlock()
	for _, fx := range list {
		t.Run(fx.Runtime, func(t *testing.T) {
			p, err := fx.Load(t)
			if err != nil {
				t.Skipf("loading: %v", err)
			}
			sleep, echo := "sleep", "echo"
			if fx.Names != nil {
				sleep, echo = fx.Names(sleep), fx.Names(echo)
			}
			h := newHarnessHost(t)
			if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "probe", Trust: fx.Trust}); err != nil {
				t.Fatal(err)
			}
			// Warm up, so the sleep call is running when Close comes.
			if _, err := h.Call(context.Background(), &abi.ToolCall{Caller: "tester", Tool: echo, Params: map[string]any{"value": 1}}); err != nil {
				t.Fatalf("echo: %v", err)
			}
			type out struct {
				err  error
				took time.Duration
			}
			done := make(chan out, 1)
			start := time.Now()
			// As the pipeline calls it: the deadline in ctx and in the call.
			cctx, cancel := context.WithDeadline(context.Background(), start.Add(3*time.Second))
			defer cancel()
			go func() {
				_, err := p.Call(cctx, &abi.ToolCall{ID: "c1", Caller: "tester", Tool: sleep, Params: map[string]any{"ms": int64(600000)}, Deadline: start.Add(3 * time.Second)}, nil)
				done <- out{err, time.Since(start)}
			}()
			time.Sleep(500 * time.Millisecond)
			closed := make(chan error, 1)
			go func() { closed <- p.Close() }()
			select {
			case o := <-done:
				if o.err == nil {
					t.Errorf("a sleep of 600 s succeeded after Close")
				}
				if o.took > 7*time.Second {
					t.Errorf("the call in flight at Close, under a 3 s deadline, returned after %v: %v", o.took, o.err)
				}
				// The provider did not crash: the host closed it.
				if abi.CodeOf(o.err) == abi.ProviderCrashed {
					t.Errorf("the call in flight at Close ended %v: the host closed the provider, it did not crash", o.err)
				}
				t.Logf("in flight at Close: %v after %v", o.err, o.took)
			case <-time.After(15 * time.Second):
				t.Errorf("the call in flight at Close had not returned 15 s later")
			}
			select {
			case <-closed:
			case <-time.After(15 * time.Second):
				t.Errorf("Close had not returned 15 s later")
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("a call after Close panicked: %v", r)
					}
				}()
				ch := make(chan error, 1)
				go func() {
					defer func() {
						if r := recover(); r != nil {
							ch <- fmt.Errorf("panic: %v", r)
						}
					}()
					_, err := p.Call(context.Background(), &abi.ToolCall{ID: "c2", Caller: "tester", Tool: echo, Params: map[string]any{"value": 1}, Deadline: time.Now().Add(5 * time.Second)}, nil)
					ch <- err
				}()
				select {
				case err := <-ch:
					if err == nil {
						t.Errorf("a call after Close succeeded")
					} else if strings.HasPrefix(err.Error(), "panic: ") {
						t.Errorf("a call after Close panicked: %v", err)
					} else {
						t.Logf("after Close: %v", err)
					}
				case <-time.After(8 * time.Second):
					t.Errorf("a call after Close hung")
				}
			}()
		})
	}
}

// TestHugeDeadlines: limits.default_deadline and max_deadline of
// 2 500 000 h (an operator's "no deadline"; time.Duration holds up to
// 2 562 047 h) put a call's deadline past the year 2262, where
// time.Time.UnixNano overflows: the runtimes that keep deadlines in Unix
// nanoseconds took it for one long past and stopped every call at once
// with Timeout. A long deadline must stay a long one.
func TestHugeDeadlines(t *testing.T) {
	for _, rt := range []string{abi.RuntimeWASM, abi.RuntimeJS, "component", abi.RuntimePython, abi.RuntimeNative} {
		t.Run(rt, func(t *testing.T) {
			fx := fixtureOf(t, rt)
			dir := t.TempDir()
			cfg := harnessConfig(dir)
			cfg.Limits.DefaultDeadline = 2500000 * time.Hour
			cfg.Limits.MaxDeadline = 2500000 * time.Hour
			h, err := host.New(host.Options{Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			p, err := fx.Load(t)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "probe", Trust: fx.Trust}); err != nil {
				t.Fatal(err)
			}
			for _, c := range []*abi.ToolCall{
				{Caller: "tester", Tool: "sleep", Params: map[string]any{"ms": 200}},
				{Caller: "tester", Tool: "sleep", Params: map[string]any{"ms": 200}, Deadline: time.Now().Add(2400000 * time.Hour)},
			} {
				if _, err := h.Call(context.Background(), c); err != nil {
					t.Errorf("sleep 200 ms (deadline %v): %v", c.Deadline, err)
				}
			}
		})
	}
}
