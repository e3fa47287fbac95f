package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/mcpserver"
	"github.com/aios-host/aios-host/server/jsonrpc"

	nativeconf "github.com/aios-host/aios-host/samples/native/conformance"
)

// chaosJS is the JS plugin the chaos test rewrites while it is called: its
// results carry the generation, so a call served by a stale provider is
// still right (value echoed) but names an older generation.
func chaosJS(gen int) string {
	return fmt.Sprintf(`aios.provider({ id: 'org.aios.probe.chaos', name: 'Chaos', capabilities: ['CallTool(*)'] });
aios.registerTool({ name: 'js-echo', parameters: { type: 'object', properties: { value: {} }, required: ['value'] } },
  (p) => ({ value: p.value, gen: %d }));
aios.registerTool({ name: 'js-sleep', parameters: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
  async (p) => { await new Promise((r) => setTimeout(r, p.ms)); return { slept: p.ms }; });
aios.registerTool({ name: 'js-spin', parameters: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
  (p) => { const end = Date.now() + p.ms; while (Date.now() < end) { /* spin */ } return { spun: p.ms }; });
aios.registerTool({ name: 'js-nested', parameters: { type: 'object', properties: { tool: { type: 'string' }, params: { type: 'object' } }, required: ['tool', 'params'] } },
  async (p, ctx) => ({ result: await ctx.callTool(p.tool, p.params), gen: %d }));
`, gen, gen)
}

// chaosPy is the Python plugin of the chaos test (AIOS_CHAOS_PY=1).
const chaosPy = `import asyncio
from aios_sdk import Agent, Capability, tool


@Agent(id="org.aios.probe.chaospy", name="Chaos (Python)", version="1.0.0", capabilities=[Capability.CallTool("*")])
class Chaos:

    @tool(name="py-echo", parameters={"value": {}})
    async def echo(self, params, ctx):
        return {"value": params["value"]}

    @tool(name="py-sleep", parameters={"ms": {"type": "integer"}})
    async def sleep(self, params, ctx):
        await asyncio.sleep(params["ms"] / 1000)
        return {"slept": params["ms"]}

    @tool(name="py-nested", parameters={"tool": {"type": "string"}, "params": {"type": "object"}})
    async def nested(self, params, ctx):
        return {"result": await ctx.call_tool(params["tool"], params["params"])}
`

const chaosConfig = `default_agent: chaos
server:
  tokens: [{agent: chaos, token: "chaos-token-6f1e0c2b9a8d7e5f4c3b2a19"}]
agents:
  chaos: {grants: ["CallTool(*)"]}
  limited: {grants: ["CallTool(*)"], rate: {per_second: 20, burst: 2}}
discovery:
  desktop_dirs: [DESKTOP]
runtimes:
  js: {isolation: ISOLATION}
mcp:
  http:
    anonymous_agent: chaos
    max_calls_per_session: 2
    max_sessions: 3
  export: ["*"]
`

// chaosCall is what one call expects.
type chaosCall struct {
	tool   string
	params map[string]any
	// check says whether a successful result is the right one.
	check func(v any) bool
	// allowed error codes besides none.
	allowed []abi.ErrorCode
	agent   string
	ctxTime time.Duration
}

// TestChaosEverythingAtOnce runs a host as `aios-host run` builds it
// (discovery watching a plugin folder, the JSON-RPC socket, MCP over HTTP)
// with native, WASM core, component and JS providers, and calls it from
// many goroutines (in process, over the socket, over MCP sessions that
// open and close) while the JS plugin is rewritten and removed and the
// WASM module and the component are rewritten, calls are
// cancelled and hit deadlines, nested calls cross runtimes (JS → WASM,
// component → native), registry subscribers come and go and a rate limit trips;
// then it closes everything with calls in flight. Every call must end,
// every success must be its own result, every top-level call that returned
// before the close must have exactly one audit record, the socket and MCP
// clients whose calls were in flight at the close must get an answer
// saying the host is shutting down, and no worker process may remain.
//
// Knobs for a longer soak (not in the normal suite): AIOS_SOAK=1 runs the
// chaos for 20 s instead of 2 s, AIOS_CHAOS_RELOAD=30ms rewrites the JS
// plugin that often (default 120ms), AIOS_CHAOS_JS=in-process runs the JS
// provider in the host process (default: a worker process),
// AIOS_CHAOS_PY=1 adds a Python provider (Python → WASM, component →
// Python, Python deadlines), AIOS_CHAOS_NOREMOVE=1 only rewrites the JS
// plugin (a reload must fail no call: docs/discovery.md),
// AIOS_CHAOS_ERRS=1 logs the expected errors seen, by kind.
func TestChaosEverythingAtOnce(t *testing.T) {
	root := testutil.RepoRoot(t)
	e := newEnv(t)
	for src, dst := range map[string]string{
		"build/wasm/c-echo.wasm":            "c-echo.wasm",
		"build/components/conformance.wasm": "conformance.component.wasm",
	} {
		b, err := os.ReadFile(filepath.Join(root, src))
		if err != nil {
			t.Skip("samples not built:", err)
		}
		if err := os.WriteFile(filepath.Join(e.plugins, dst), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	jsPath := filepath.Join(e.plugins, "chaos.js")
	if err := os.WriteFile(jsPath, []byte(chaosJS(0)), 0o600); err != nil {
		t.Fatal(err)
	}
	withPy := os.Getenv("AIOS_CHAOS_PY") == "1"
	if withPy {
		if err := os.WriteFile(filepath.Join(e.plugins, "chaos_py.py"), []byte(chaosPy), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(strings.NewReplacer("DESKTOP", t.TempDir(), "ISOLATION", cmp.Or(os.Getenv("AIOS_CHAOS_JS"), "process")).Replace(chaosConfig)), 0o600); err != nil {
		t.Fatal(err)
	}
	reloadEvery := 120 * time.Millisecond
	if d, err := time.ParseDuration(os.Getenv("AIOS_CHAOS_RELOAD")); err == nil {
		reloadEvery = d
	}
	dur := 2 * time.Second
	if os.Getenv("AIOS_SOAK") == "1" {
		dur = 20 * time.Second
	}
	// The whole test is bounded: a hang dumps the goroutines.
	hang := time.AfterFunc(dur+90*time.Second, func() {
		fmt.Fprintf(os.Stderr, "chaos test hangs; goroutines:\n%s\n", testutil.GoroutineDump())
		os.Exit(2)
	})
	defer hang.Stop()
	goroutinesBefore := runtime.NumGoroutine()
	childrenBefore, _ := testutil.Children()
	if len(childrenBefore) > 0 {
		t.Logf("child processes before the test: %v", childrenBefore)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncBuffer{}
	c := &cli{ctx: ctx, stdout: io.Discard, stderr: logs, configFile: cfgPath, data: e.data, plugins: []string{e.plugins}}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h, err := c.newHost(ctx, log, hostOptions{audit: true, discovery: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.AddProvider(ctx, nativeconf.NewPeer(), host.ProviderMeta{Source: "native peer", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "h.sock")
	sv, err := c.startServing(ctx, h, log, sock, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			sv.close()
			_ = closeHost(h, io.Discard)
		}
	}()
	for _, tool := range []string{"echo", "nested", "sleep", "c-echo", "js-echo", "js-nested", "peer-echo"} {
		if _, err := h.Registry().Resolve(tool, ""); err != nil {
			t.Fatalf("tool %s not registered: %v\n%s", tool, err, logs.String())
		}
	}
	base := sv.s.PublicURL()

	var uniq atomic.Int64
	next := func() string { return fmt.Sprintf("u%d", uniq.Add(1)) }
	scenarios := []func() chaosCall{
		func() chaosCall { // component echo
			u := next()
			return chaosCall{tool: "echo", params: map[string]any{"value": u}, check: func(v any) bool {
				return reflect.DeepEqual(v, map[string]any{"value": u})
			}}
		},
		func() chaosCall { // WASM core echo
			u := next()
			return chaosCall{tool: "c-echo", params: map[string]any{"value": u}, check: func(v any) bool {
				return reflect.DeepEqual(v, map[string]any{"value": u})
			}}
		},
		func() chaosCall { // JS echo, reloaded meanwhile
			u := next()
			return chaosCall{tool: "js-echo", params: map[string]any{"value": u}, allowed: []abi.ErrorCode{abi.NotFound, abi.Unavailable},
				check: func(v any) bool { m, _ := v.(map[string]any); return m != nil && m["value"] == u }}
		},
		func() chaosCall { // JS → WASM
			u := next()
			return chaosCall{tool: "js-nested", params: map[string]any{"tool": "c-echo", "params": map[string]any{"value": u}}, allowed: []abi.ErrorCode{abi.NotFound, abi.Unavailable},
				check: func(v any) bool {
					m, _ := v.(map[string]any)
					return m != nil && reflect.DeepEqual(m["result"], map[string]any{"value": u})
				}}
		},
		func() chaosCall { // component → native
			u := next()
			return chaosCall{tool: "nested", params: map[string]any{"tool": "peer-echo", "params": map[string]any{"value": u}}, check: func(v any) bool {
				return reflect.DeepEqual(v, map[string]any{"result": map[string]any{"value": u}})
			}}
		},
		func() chaosCall { // component → JS (reloaded meanwhile)
			u := next()
			return chaosCall{tool: "nested", params: map[string]any{"tool": "js-echo", "params": map[string]any{"value": u}}, allowed: []abi.ErrorCode{abi.NotFound, abi.Unavailable},
				check: func(v any) bool {
					m, _ := v.(map[string]any)
					r, _ := m["result"].(map[string]any)
					return r != nil && r["value"] == u
				}}
		},
		func() chaosCall { // deadline hit in a component
			return chaosCall{tool: "sleep", params: map[string]any{"ms": int64(300)}, ctxTime: 20 * time.Millisecond,
				allowed: []abi.ErrorCode{abi.Timeout, abi.Cancelled}, check: func(v any) bool {
					return reflect.DeepEqual(v, map[string]any{"slept": int64(300)})
				}}
		},
		func() chaosCall { // deadline hit in JS
			return chaosCall{tool: "js-sleep", params: map[string]any{"ms": int64(300)}, ctxTime: 20 * time.Millisecond,
				allowed: []abi.ErrorCode{abi.Timeout, abi.Cancelled, abi.NotFound, abi.Unavailable}, check: func(v any) bool { return false }}
		},
		func() chaosCall { // rate limit
			u := next()
			return chaosCall{tool: "peer-echo", agent: "limited", params: map[string]any{"value": u}, allowed: []abi.ErrorCode{abi.RateLimited},
				check: func(v any) bool { return reflect.DeepEqual(v, map[string]any{"value": u}) }}
		},
	}
	if withPy {
		scenarios = append(scenarios,
			func() chaosCall { // Python → WASM
				u := next()
				return chaosCall{tool: "py-nested", params: map[string]any{"tool": "c-echo", "params": map[string]any{"value": u}},
					check: func(v any) bool {
						m, _ := v.(map[string]any)
						return m != nil && reflect.DeepEqual(m["result"], map[string]any{"value": u})
					}}
			},
			func() chaosCall { // component → Python
				u := next()
				return chaosCall{tool: "nested", params: map[string]any{"tool": "py-echo", "params": map[string]any{"value": u}}, check: func(v any) bool {
					return reflect.DeepEqual(v, map[string]any{"result": map[string]any{"value": u}})
				}}
			},
			func() chaosCall { // deadline hit in Python
				return chaosCall{tool: "py-sleep", params: map[string]any{"ms": int64(300)}, ctxTime: 30 * time.Millisecond,
					allowed: []abi.ErrorCode{abi.Timeout, abi.Cancelled}, check: func(v any) bool { return false }}
			})
	}
	allowedErr := func(cc chaosCall, err error) bool {
		var te *abi.ToolError
		if !errors.As(err, &te) {
			return false
		}
		for _, c := range cc.allowed {
			if te.Code == c {
				return true
			}
		}
		return false
	}

	var (
		mu       sync.Mutex
		returned = map[string]int{} // top-level call id → times returned before the close
		problems []string
		errSeen  = map[string]int{}
	)
	problem := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, a...))
		}
	}
	var calls, oks atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// In-process callers.
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				cc := scenarios[(w+i*5)%len(scenarios)]()
				agent := cc.agent
				if agent == "" {
					agent = "chaos"
				}
				cctx, ccancel := ctx, context.CancelFunc(func() {})
				if cc.ctxTime > 0 {
					cctx, ccancel = context.WithTimeout(ctx, cc.ctxTime)
				}
				t0 := time.Now()
				v, info, err := h.CallWithInfo(cctx, &abi.ToolCall{Caller: agent, Tool: cc.tool, Params: cc.params})
				took := time.Since(t0)
				ccancel()
				if err == nil && cc.ctxTime > 0 && info.Latency > cc.ctxTime {
					problem("%s %v: success after %s (pipeline latency %s), past its %s deadline", cc.tool, cc.params, took, info.Latency, cc.ctxTime)
				}
				calls.Add(1)
				if info.CallID != "" {
					mu.Lock()
					returned[info.CallID]++
					mu.Unlock()
				}
				switch {
				case err == nil && !cc.check(v):
					problem("%s %v: wrong result %#v", cc.tool, cc.params, v)
				case err == nil:
					oks.Add(1)
				case !allowedErr(cc, err):
					problem("%s %v: unexpected error %v", cc.tool, cc.params, err)
				default:
					if os.Getenv("AIOS_CHAOS_ERRS") != "" {
						var te *abi.ToolError
						errors.As(err, &te)
						mu.Lock()
						errSeen[string(te.Code)+" "+cc.tool+": "+te.Message[:min(len(te.Message), 140)]]++
						mu.Unlock()
					}
				}
			}
		}()
	}
	// rpcLoop calls tools/call on cl until stop, cycling through the first
	// n scenarios, and checks each answer (label names the front end).
	rpcLoop := func(label string, cl interface {
		Call(ctx context.Context, method string, params, result any) error
	}, n int) {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			cc := scenarios[i%n]()
			var res jsonrpc.ToolsCallResult
			err := cl.Call(ctx, "tools/call", jsonrpc.ToolsCallParams{Name: cc.tool, Arguments: cc.params}, &res)
			calls.Add(1)
			if res.CallID != "" {
				mu.Lock()
				returned[res.CallID]++
				mu.Unlock()
			}
			var je *jsonrpc.Error
			switch {
			case err == nil && !cc.check(res.Value):
				problem("%s %s: wrong result %#v", label, cc.tool, res.Value)
			case err == nil:
				oks.Add(1)
			case errors.As(err, &je) && je.Data != nil && allowedErr(cc, &abi.ToolError{Code: je.Data.Code}):
			default:
				problem("%s %s: %v", label, cc.tool, err)
			}
		}
	}
	// JSON-RPC callers, one connection each.
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl, err := jsonrpc.DialUnix(ctx, sock)
			if err != nil {
				problem("dial: %v", err)
				return
			}
			defer cl.Close()
			rpcLoop("rpc", cl, 3)
		}()
	}
	// A caller over HTTP /rpc, and /events streams that come and go.
	wg.Add(2)
	go func() {
		defer wg.Done()
		rpcLoop("http rpc", jsonrpc.NewHTTPClient(base+"/rpc", "chaos-token-6f1e0c2b9a8d7e5f4c3b2a19", nil), 4)
	}()
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			rctx, rcancel := context.WithTimeout(ctx, 100*time.Millisecond)
			req, _ := http.NewRequestWithContext(rctx, http.MethodGet, base+"/events", nil)
			req.Header.Set("Authorization", "Bearer chaos-token-6f1e0c2b9a8d7e5f4c3b2a19")
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				if resp.StatusCode != http.StatusOK {
					problem("/events: %s", resp.Status)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			} else if rctx.Err() == nil {
				problem("/events: %v", err)
			}
			rcancel()
		}
	}()
	// One subscriber for the whole run: its view of the JS provider
	// (added/updated: present, removed: absent) must end as the registry's.
	var (
		viewMu   sync.Mutex
		view     string // last change of org.aios.probe.chaos
		overflow bool
	)
	stayer, err := jsonrpc.DialUnix(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer stayer.Close()
	var notes atomic.Int64
	stayer.OnNotify(func(method string, params json.RawMessage) {
		notes.Add(1)
		var n struct {
			Added, Removed, Updated []struct {
				ID string `json:"id"`
			}
			Overflow bool `json:"overflow"`
		}
		if err := json.Unmarshal(params, &n); err != nil {
			problem("tools_changed: %v", err)
			return
		}
		viewMu.Lock()
		defer viewMu.Unlock()
		overflow = overflow || n.Overflow
		for kind, list := range map[string][]struct {
			ID string `json:"id"`
		}{"added": n.Added, "removed": n.Removed, "updated": n.Updated} {
			for _, a := range list {
				if a.ID == "org.aios.probe.chaos" {
					view = kind
				}
			}
		}
	})
	if err := stayer.Call(ctx, "aios/registry.subscribe", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	// Subscribers that come and go.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			cl, err := jsonrpc.DialUnix(ctx, sock)
			if err != nil {
				problem("subscriber dial: %v", err)
				return
			}
			var n atomic.Int64
			cl.OnNotify(func(method string, params json.RawMessage) { n.Add(1) })
			var res any
			if err := cl.Call(ctx, "aios/registry.subscribe", map[string]any{}, &res); err != nil {
				problem("subscribe: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
			_ = cl.Close()
		}
	}()
	// MCP sessions that open, call and close.
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "chaos"}, nil).Connect(ctx,
					&mcpsdk.StreamableClientTransport{Endpoint: base + mcpserver.Path}, nil)
				if err != nil {
					problem("mcp connect: %v", err)
					return
				}
				for i := range 3 {
					cc := scenarios[i]()
					res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: cc.tool, Arguments: cc.params})
					calls.Add(1)
					var v any
					if err == nil && !res.IsError && len(res.Content) == 1 {
						if tc, ok := res.Content[0].(*mcpsdk.TextContent); ok {
							_ = json.Unmarshal([]byte(tc.Text), &v)
						}
					}
					switch {
					case err != nil && cc.allowed != nil && strings.Contains(err.Error(), "unknown tool"):
						// a reloaded tool between its removal and its return
					case err != nil:
						problem("mcp %s: %v", cc.tool, err)
					case !res.IsError && !cc.check(v):
						problem("mcp %s: wrong result %#v", cc.tool, res.Content)
					case !res.IsError:
						oks.Add(1)
					}
				}
				// A burst past max_calls_per_session, and the session
				// closed (or displaced by max_sessions) under it.
				var burst sync.WaitGroup
				for range 4 {
					burst.Add(1)
					go func() {
						defer burst.Done()
						res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "js-sleep", Arguments: map[string]any{"ms": 200}})
						calls.Add(1)
						if err == nil && !res.IsError {
							oks.Add(1)
						}
					}()
				}
				time.Sleep(50 * time.Millisecond)
				_ = cs.Close()
				burst.Wait()
			}
		}()
	}
	// Hot reload: rewrite the JS plugin, sometimes remove it and put it back.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for gen := 1; ; gen++ {
			select {
			case <-stop:
				return
			case <-time.After(reloadEvery):
			}
			if gen%5 == 0 && os.Getenv("AIOS_CHAOS_NOREMOVE") == "" {
				_ = os.Remove(jsPath)
				time.Sleep(150 * time.Millisecond)
			}
			if gen%3 == 0 {
				// The WASM module and the component, each with a custom
				// section naming the generation: a new file to reload.
				for _, f := range []struct{ src, dst string }{
					{"build/wasm/c-echo.wasm", "c-echo.wasm"},
					{"build/components/conformance.wasm", "conformance.component.wasm"},
				} {
					b, err := os.ReadFile(filepath.Join(root, f.src))
					if err != nil {
						problem("read: %v", err)
						return
					}
					name := fmt.Sprintf("gen%d", gen)
					b = append(b, 0, byte(1+len(name)), byte(len(name)))
					b = append(b, name...)
					dst := filepath.Join(e.plugins, f.dst)
					if err := os.WriteFile(dst+".tmp", b, 0o600); err == nil {
						_ = os.Rename(dst+".tmp", dst)
					}
				}
			}
			tmp := jsPath + ".tmp"
			if err := os.WriteFile(tmp, []byte(chaosJS(gen)), 0o600); err != nil {
				problem("write: %v", err)
				return
			}
			if err := os.Rename(tmp, jsPath); err != nil {
				problem("rename: %v", err)
				return
			}
		}
	}()
	time.Sleep(dur)
	close(stop)
	wg.Wait()

	// Calls in flight at the close.
	type late struct {
		v   any
		err error
	}
	lateDone := make(chan late, 8)
	testutil.Eventually(t, "js-sleep registered again", func() bool {
		_, err := h.Registry().Resolve("js-sleep", "")
		return err == nil
	})
	time.Sleep(500 * time.Millisecond) // the last notifications arrive
	viewMu.Lock()
	if !overflow && view == "removed" {
		t.Errorf("the subscriber's last notification says org.aios.probe.chaos was removed; it is registered")
	}
	t.Logf("subscriber's last change of the JS provider: %q (overflow %v, %d notifications)", view, overflow, notes.Load())
	viewMu.Unlock()
	// Rescans (aios/registry.refresh) from two clients up to the close.
	refreshing := make(chan struct{})
	var refreshOnce sync.Once
	var refreshers sync.WaitGroup
	for range 2 {
		refreshers.Add(1)
		go func() {
			defer refreshers.Done()
			cl, err := jsonrpc.DialUnix(ctx, sock)
			if err != nil {
				problem("refresh dial: %v", err)
				return
			}
			defer cl.Close()
			for i := 0; ; i++ {
				if i == 2 {
					refreshOnce.Do(func() { close(refreshing) })
				}
				if err := cl.Call(ctx, "aios/registry.refresh", map[string]any{"scope": "local"}, nil); err != nil {
					return // the server closed
				}
				// Something to load for the next rescan.
				_ = os.WriteFile(jsPath, []byte(chaosJS(1000+i)), 0o600)
			}
		}()
	}
	<-refreshing
	// Over the socket and MCP: the servers cancel them at their close,
	// and their records say so (docs/audit.md "What a crash can lose").
	frontDone := make(chan error, 3)
	var connected sync.WaitGroup
	connected.Add(3)
	go func() {
		cl := jsonrpc.NewHTTPClient(base+"/rpc", "chaos-token-6f1e0c2b9a8d7e5f4c3b2a19", nil)
		connected.Done()
		frontDone <- cl.Call(ctx, "tools/call", jsonrpc.ToolsCallParams{Name: "js-sleep", Arguments: map[string]any{"ms": 3000}}, nil)
	}()
	go func() {
		cl, err := jsonrpc.DialUnix(ctx, sock)
		connected.Done()
		if err != nil {
			frontDone <- err
			return
		}
		defer cl.Close()
		frontDone <- cl.Call(ctx, "tools/call", jsonrpc.ToolsCallParams{Name: "js-sleep", Arguments: map[string]any{"ms": 3000}}, nil)
	}()
	go func() {
		cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "late"}, nil).Connect(ctx,
			&mcpsdk.StreamableClientTransport{Endpoint: base + mcpserver.Path}, nil)
		connected.Done()
		if err != nil {
			frontDone <- err
			return
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "js-sleep", Arguments: map[string]any{"ms": 3000}})
		switch {
		case err != nil:
			frontDone <- fmt.Errorf("mcp: %w", err)
		case !res.IsError || len(res.Content) != 1:
			frontDone <- fmt.Errorf("mcp: %v", res.Content)
		default:
			tc, _ := res.Content[0].(*mcpsdk.TextContent)
			if tc == nil {
				frontDone <- fmt.Errorf("mcp: %v", res.Content)
			} else {
				frontDone <- errors.New(tc.Text)
			}
		}
	}()
	// A spinning JS call whose deadline comes after the close: the deadline
	// still ends it (the JS runtime is closed under it).
	spinDone := make(chan error, 1)
	go func() {
		sctx, scancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		defer scancel()
		_, err := h.Call(sctx, &abi.ToolCall{Caller: "chaos", Tool: "js-spin", Params: map[string]any{"ms": int64(8000)}})
		spinDone <- err
	}()
	for _, tool := range []string{"sleep", "js-sleep", "nested", "echo"} {
		go func() {
			params := map[string]any{"ms": int64(2000)}
			if tool == "nested" {
				params = map[string]any{"tool": "js-sleep", "params": map[string]any{"ms": int64(2000)}}
			} else if tool == "echo" {
				params = map[string]any{"value": "late"}
			}
			// A deadline: the component's sleep busy-waits on the guest's
			// virtual clock (no Clock grant), where 2 s are 2e9 readings.
			lctx, lcancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer lcancel()
			v, err := h.Call(lctx, &abi.ToolCall{Caller: "chaos", Tool: tool, Params: params})
			lateDone <- late{v, err}
		}()
	}
	connected.Wait()
	time.Sleep(300 * time.Millisecond) // the calls reach their handlers
	mu.Lock()
	before := make(map[string]int, len(returned))
	for k, n := range returned {
		before[k] = n
	}
	mu.Unlock()
	closed = true
	sv.close()
	if err := closeHost(h, io.Discard); err != nil {
		t.Errorf("close: %v", err)
	}
	refreshers.Wait()
	for range 3 {
		select {
		case err := <-frontDone:
			// Each client has its answer, saying why.
			if err == nil || !strings.Contains(err.Error(), "the host is shutting down") {
				t.Errorf("a front-end call in flight at the close: %v; want an answer saying the host is shutting down", err)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("a front-end call in flight at the close never returned; goroutines:\n%s", testutil.GoroutineDump())
		}
	}
	select {
	case err := <-spinDone:
		var te *abi.ToolError
		if !errors.As(err, &te) || te.Code != abi.Timeout {
			t.Errorf("a spinning JS call whose deadline came after the close: %v; want Timeout", err)
		}
	case <-time.After(6 * time.Second):
		t.Errorf("a spinning JS call whose 1.5 s deadline came after the close has not returned after 6 s")
	}
	for range 4 {
		select {
		case r := <-lateDone:
			if r.err == nil && r.v == nil {
				t.Errorf("a call in flight at the close returned no result and no error")
			}
			t.Logf("in-process call in flight at the close: %v %v", r.v, r.err)
		case <-time.After(15 * time.Second):
			t.Fatalf("a call in flight at the close never returned; goroutines:\n%s", testutil.GoroutineDump())
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
	if os.Getenv("AIOS_CHAOS_ERRS") != "" {
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "provider reloaded") || strings.Contains(l, "provider not loaded") {
				t.Log(l[min(len(l), 30):])
			}
		}
	}
	for m, n := range errSeen {
		t.Logf("%5d × %s", n, m)
	}
	t.Logf("%d calls, %d ok, %d top-level call ids before the close; %d reloads, %d loads refused", calls.Load(), oks.Load(), len(before),
		strings.Count(logs.String(), `msg="provider reloaded"`), strings.Count(logs.String(), `msg="provider not loaded`))

	// Audit: each top-level call that returned before the close has one record.
	f, err := os.Open(filepath.Join(e.data, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := map[string]int{}
	shutdown := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r struct {
			CallID string `json:"call_id"`
			Error  string `json:"error"`
			Parent string `json:"parent_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line: %v", err)
		}
		recs[r.CallID]++
		if strings.HasPrefix(r.Error, "the host is shutting down") && r.Parent == "" {
			shutdown++
		}
	}
	if shutdown < 3 {
		t.Errorf("%d top-level records say the host is shutting down; want one for each front-end call in flight at the close (3)", shutdown)
	}
	for id, n := range recs {
		if n != 1 {
			t.Errorf("call %s has %d audit records", id, n)
		}
	}
	missing := 0
	for id, n := range before {
		if n != 1 {
			t.Errorf("call id %s returned %d times", id, n)
		}
		if recs[id] == 0 {
			missing++
			if missing <= 5 {
				t.Errorf("call %s returned before the close but has no audit record", id)
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d calls have no audit record", missing, len(before))
	}

	// No worker process is left.
	end := time.Now().Add(10 * time.Second)
	for {
		live := workers(childrenBefore)
		if len(live) == 0 {
			break
		}
		if time.Now().After(end) {
			var b strings.Builder
			for _, pid := range live {
				cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				fmt.Fprintf(&b, "  %d %q\n", pid, cmd)
			}
			ls := strings.Split(logs.String(), "\n")
			if len(ls) > 40 {
				ls = ls[len(ls)-40:]
			}
			t.Fatalf("worker processes left 10 s after the close:\n%s\nlog:\n%s", b.String(), strings.Join(ls, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	stayer.Close()
	if n := testutil.SettleGoroutines(goroutinesBefore+10, 30*time.Second); n > goroutinesBefore+10 {
		t.Errorf("%d goroutines 10 s after the close, %d before the host started:\n%s", n, goroutinesBefore, testutil.GoroutineDump())
	}
}

// workers lists this process's children but those in before (JS and
// Python workers, the JS bundler: closeHost left the bundler until it had
// been idle for 30 s).
func workers(before []int) []int {
	live, _ := testutil.Children()
	var out []int
	for _, pid := range live {
		if !slices.Contains(before, pid) {
			out = append(out, pid)
		}
	}
	return out
}
