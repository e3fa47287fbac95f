package host

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestRateConcurrentExact: many goroutines hammering one tool get
// exactly its burst admitted (no lost or double counting), the rest
// RateLimited, and the per-caller and tool buckets together never admit more
// than the smaller one allows, refunds included.
func TestRateConcurrentExact(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.RateLimits.PerCaller = &config.Rate{PerSecond: 0.001, Burst: 40}
		c.RateLimits.PerTool = map[string]config.Rate{"whoami": {PerSecond: 0.001, Burst: 15}}
	})
	var okWho, okEcho, limited, other atomic.Int64
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 30 {
				var err error
				isWho := g%2 == 0
				if isWho {
					_, err = te.call("alice", "whoami", nil)
				} else {
					_, err = te.call("alice", "echo", map[string]any{"msg": "x"})
				}
				switch {
				case err == nil && isWho:
					okWho.Add(1)
				case err == nil:
					okEcho.Add(1)
				case abi.CodeOf(err) == abi.RateLimited:
					limited.Add(1)
				default:
					other.Add(1)
					t.Errorf("unexpected error: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	if okWho.Load() > 15 {
		t.Errorf("whoami admitted %d times, over its burst 15", okWho.Load())
	}
	if tot := okWho.Load() + okEcho.Load(); tot > 40 {
		t.Errorf("alice admitted %d calls, over her burst of 40", tot)
	}
	// Refunds of refused whoami calls may have refused echo calls in the
	// meantime; the tokens are all back now: alice holds exactly the rest.
	rest := 40 - okWho.Load() - okEcho.Load()
	for i := int64(0); i < rest; i++ {
		if _, err := te.call("alice", "echo", map[string]any{"msg": "x"}); err != nil {
			t.Fatalf("echo %d of the %d tokens alice has left: %v (a refund was lost)", i, rest, err)
		}
	}
	if _, err := te.call("alice", "echo", map[string]any{"msg": "x"}); abi.CodeOf(err) != abi.RateLimited {
		t.Fatalf("call past alice's burst: %v, want RateLimited (a refund was given twice)", err)
	}
}

// TestRateRetryHonest: retry_after_ms is the time until the bucket
// holds a token: a call made that long after is admitted, and a fractional
// rate gives the arithmetic's value.
func TestRateRetryHonest(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.RateLimits.PerTool = map[string]config.Rate{"whoami": {PerSecond: 4, Burst: 2}, "echo": {PerSecond: 0.25}}
	})
	for range 2 {
		if _, err := te.call("alice", "whoami", nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err := te.call("alice", "whoami", nil)
	var terr *abi.ToolError
	if !errors.As(err, &terr) || terr.Code != abi.RateLimited {
		t.Fatalf("third call: %v", err)
	}
	ms, _ := terr.Data.(map[string]any)["retry_after_ms"].(int64)
	if ms < 200 || ms > 250 {
		t.Fatalf("retry_after_ms = %d at 4/s, want ≤ 250", ms)
	}
	time.Sleep(time.Duration(ms) * time.Millisecond)
	if _, err := te.call("alice", "whoami", nil); err != nil {
		t.Fatalf("call %dms later, as told: %v", ms, err)
	}
	// 0.25/s: burst ⌈0.25⌉ = 1, then one call each 4 s.
	if _, err := te.call("alice", "echo", map[string]any{"msg": "x"}); err != nil {
		t.Fatal(err)
	}
	_, err = te.call("alice", "echo", map[string]any{"msg": "x"})
	if !errors.As(err, &terr) || terr.Code != abi.RateLimited {
		t.Fatalf("second echo: %v", err)
	}
	if ms, _ := terr.Data.(map[string]any)["retry_after_ms"].(int64); ms < 3900 || ms > 4000 {
		t.Fatalf("retry_after_ms = %d at 0.25/s, want ≈ 4000", ms)
	}
}

// TestRateNoLeak: an agent, a tool or a provider at its limit does
// not hold up another.
func TestRateNoLeak(t *testing.T) {
	slow := config.Rate{PerSecond: 0.001, Burst: 1}
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["carol"] = config.Agent{Grants: []string{"CallTool(*)"}}
		c.RateLimits.PerCaller = &slow
		c.RateLimits.PerTool = map[string]config.Rate{"w*": slow}
		c.Providers = map[string]config.ProviderOverride{"org.probe.p1": {Rate: &slow}}
	})
	for _, id := range []string{"org.probe.p1", "org.probe.p2"} {
		p := native.New(abi.ProviderInfo{ID: id})
		name := "t-" + strings.TrimPrefix(id, "org.probe.")
		p.MustRegister(abi.ToolDef{Name: name, Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
		if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
			t.Fatal(err)
		}
	}
	// Per-caller: alice's one token, then carol's own.
	if _, err := te.call("alice", "t-p2", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := te.call("alice", "t-p2", nil); abi.CodeOf(err) != abi.RateLimited || !strings.Contains(err.Error(), `caller "alice"`) {
		t.Fatalf("alice's second call: %v", err)
	}
	if _, err := te.call("carol", "whoami", nil); err != nil {
		t.Fatalf("carol after alice's limit: %v", err)
	}
	// per_tool w*: whoami is spent (carol's call); write has its own bucket.
	te2 := newTestHost(t, func(c *config.Config) {
		c.RateLimits.PerTool = map[string]config.Rate{"w*": slow}
		c.Providers = map[string]config.ProviderOverride{"org.probe.p1": {Rate: &slow}}
	})
	for _, id := range []string{"org.probe.p1", "org.probe.p2"} {
		p := native.New(abi.ProviderInfo{ID: id})
		p.MustRegister(abi.ToolDef{Name: "t-" + strings.TrimPrefix(id, "org.probe."), Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
		if err := te2.h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := te2.call("alice", "whoami", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := te2.call("alice", "whoami", nil); abi.CodeOf(err) != abi.RateLimited {
		t.Fatalf("second whoami: %v", err)
	}
	if _, err := te2.call("alice", "write", map[string]any{"space": "scratch", "data": "x"}); err != nil {
		t.Fatalf("write after whoami's limit (w* gives each tool its own bucket): %v", err)
	}
	if _, err := te2.call("alice", "t-p1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := te2.call("alice", "t-p1", nil); abi.CodeOf(err) != abi.RateLimited || !strings.Contains(err.Error(), "provider org.probe.p1") {
		t.Fatalf("second t-p1: %v", err)
	}
	for range 3 {
		if _, err := te2.call("alice", "t-p2", nil); err != nil {
			t.Fatalf("t-p2 after p1's limit: %v", err)
		}
	}
}

// TestRateNested: a nested call spends no agent token but counts
// against the tool's limit; its refusal reaches the outer caller as
// RateLimited, and both calls are audited with their codes.
func TestRateNested(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.RateLimits.PerTool = map[string]config.Rate{"whoami": {PerSecond: 0.001, Burst: 1}}
	})
	// limited: one token. The nested whoami is not counted against it.
	if v, err := te.call("limited", "nested", map[string]any{"tool": "whoami"}); err != nil {
		t.Fatalf("limited → nested → whoami: %v", err)
	} else if v.(map[string]any)["caller"] != "org.test.tools" {
		t.Fatalf("nested whoami caller = %v", v)
	}
	_, err := te.call("alice", "nested", map[string]any{"tool": "whoami"})
	var terr *abi.ToolError
	if !errors.As(err, &terr) || terr.Code != abi.RateLimited || !strings.Contains(terr.Message, "tool whoami") {
		t.Fatalf("nested whoami past its tool limit: %v", err)
	}
	if _, ok := terr.Data.(map[string]any)["retry_after_ms"]; !ok {
		t.Fatalf("nested refusal lost retry_after_ms: %#v", terr.Data)
	}
	if err := te.h.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(te.audit)
	var limitedRecs int
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, `"outcome":"RateLimited"`) {
			limitedRecs++
			if !strings.Contains(line, "rate limit of tool whoami") {
				t.Errorf("RateLimited record without its message: %s", line)
			}
		}
	}
	if limitedRecs != 2 { // the nested whoami and the outer nested
		t.Fatalf("%d RateLimited records, want 2:\n%s", limitedRecs, data)
	}
}

// TestRateErrorNamesLimit: a RateLimited error names the config key
// of the bucket that refused it and its rate, in the message and in
// data.limit: "rate limit of caller alice" did not say whether
// agents.alice.rate or rate_limits.per_caller applies, nor which per_tool
// pattern gave a tool its bucket; and only the per-tool bucket named the
// tool (found by p117).
func TestRateErrorNamesLimit(t *testing.T) {
	slow := config.Rate{PerSecond: 0.5, Burst: 1}
	tests := []struct {
		name   string
		mutate func(*config.Config)
		caller string
		tool   string
		key    string
		rate   string
	}{
		{"agent's own", nil, "limited", "whoami", "agents.limited.rate", "0.001/s, burst 1"},
		{"per caller", func(c *config.Config) { c.RateLimits.PerCaller = &slow }, "alice", "whoami", "rate_limits.per_caller", "0.5/s, burst 1"},
		{"per tool", func(c *config.Config) { c.RateLimits.PerTool = map[string]config.Rate{"whoami": slow} }, "alice", "whoami", "rate_limits.per_tool.whoami", "0.5/s, burst 1"},
		{"per tool pattern", func(c *config.Config) { c.RateLimits.PerTool = map[string]config.Rate{"who*": slow} }, "alice", "whoami", "rate_limits.per_tool[\"who*\"]", "0.5/s, burst 1"},
		{"provider", func(c *config.Config) {
			c.Providers = map[string]config.ProviderOverride{"org.test.tools": {Rate: &slow}}
		}, "alice", "whoami", "providers[\"org.test.tools\"].rate", "0.5/s, burst 1"},
		{"global", func(c *config.Config) { c.RateLimits.Global = &config.Rate{PerSecond: 2.5} }, "alice", "whoami", "rate_limits.global", "2.5/s, burst 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			te := newTestHost(t, tc.mutate)
			var err error
			for range 4 {
				if _, err = te.call(tc.caller, tc.tool, nil); err != nil {
					break
				}
			}
			var terr *abi.ToolError
			if !errors.As(err, &terr) || terr.Code != abi.RateLimited {
				t.Fatalf("err = %v, want RateLimited", err)
			}
			if want := "(" + tc.key + ": " + tc.rate + ")"; !strings.Contains(terr.Message, want) {
				t.Errorf("message %q does not name %s", terr.Message, want)
			}
			// Every bucket's refusal names the tool whose call it
			// refused: the caller's, provider's and global ones did not,
			// so through nested calls the hop refused was not told.
			if !strings.Contains(terr.Message, tc.tool) {
				t.Errorf("message %q does not name the tool %s", terr.Message, tc.tool)
			}
			if d, _ := terr.Data.(map[string]any); d["limit"] != tc.key {
				t.Errorf("data = %#v, want limit %q", terr.Data, tc.key)
			}
		})
	}
}

// hungProvider is a non-native provider whose calls ignore their
// deadline and context (a hung worker): they return when release closes.
type hungProvider struct {
	id      string
	release chan struct{}
	started atomic.Int64
}

func (p *hungProvider) Describe() *abi.ToolRegister {
	return &abi.ToolRegister{Provider: abi.ProviderInfo{ID: p.id, Runtime: abi.RuntimePython},
		Tools: []abi.ToolDef{{Name: "stuck", Version: "1.0.0"}, {Name: "quick", Version: "1.0.0"}}}
}

func (p *hungProvider) Call(_ context.Context, call *abi.ToolCall, _ abi.Env) (any, error) {
	if call.Tool == "quick" {
		return "quick", nil
	}
	p.started.Add(1)
	<-p.release
	return "late", nil
}

func (p *hungProvider) Close() error { return nil }

// TestDeadlineUnderLoad: many calls of a provider that ignores its
// deadline are each abandoned with Timeout (data.abandoned) within the
// deadline and the grace, all at once, not one after the other; the
// provider's tokens were spent, its other tool still answers, and each
// abandoned call has its Timeout record.
func TestDeadlineUnderLoad(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Providers = map[string]config.ProviderOverride{"org.probe.stuck": {Rate: &config.Rate{PerSecond: 0.001, Burst: 41}}}
	})
	sp := &hungProvider{id: "org.probe.stuck", release: make(chan struct{})}
	defer close(sp.release)
	if err := te.h.AddProvider(context.Background(), sp, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	const n = 40
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "stuck", Deadline: time.Now().Add(150 * time.Millisecond)})
		}()
	}
	wg.Wait()
	took := time.Since(start)
	for i, err := range errs {
		var terr *abi.ToolError
		if !errors.As(err, &terr) || terr.Code != abi.Timeout {
			t.Fatalf("call %d: %v, want Timeout", i, err)
		}
		if d, _ := terr.Data.(map[string]any); d["abandoned"] != true {
			t.Fatalf("call %d: data %#v, want abandoned", i, terr.Data)
		}
	}
	if took > 150*time.Millisecond+abandonGrace+time.Second {
		t.Fatalf("%d stuck calls took %v", n, took)
	}
	if got := sp.started.Load(); got != n {
		t.Fatalf("provider saw %d calls, want %d", got, n)
	}
	if v, err := te.call("alice", "quick", nil); err != nil || v != "quick" {
		t.Fatalf("the last token of the provider: %v %v", v, err)
	}
	if _, err := te.call("alice", "quick", nil); abi.CodeOf(err) != abi.RateLimited {
		t.Fatalf("past the provider's burst: %v", err)
	}
	if err := te.h.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(te.audit)
	if c := strings.Count(string(data), `"outcome":"Timeout"`); c != n {
		t.Fatalf("%d Timeout records, want %d", c, n)
	}
}

// closedRace reports whether err is the Unavailable of a call that
// resolved a provider just before ReplaceProvider closed it (documented on
// ReplaceProvider): the call passed the rate limits and spent its tokens.
func closedRace(err error) bool {
	return abi.CodeOf(err) == abi.Unavailable && strings.HasSuffix(err.Error(), " is closed")
}

// TestRateSurvivesReload: replacing a provider (a hot reload) while
// its calls run and are limited neither resets its buckets (a reload is no
// way around a limit) nor loses or doubles a token.
func TestRateSurvivesReload(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Providers = map[string]config.ProviderOverride{"org.probe.hot": {Rate: &config.Rate{PerSecond: 0.001, Burst: 30}}}
		c.RateLimits.PerTool = map[string]config.Rate{"hot-*": {PerSecond: 0.001, Burst: 20}}
	})
	mk := func(gen string) *native.Provider {
		p := native.New(abi.ProviderInfo{ID: "org.probe.hot"})
		p.MustRegister(abi.ToolDef{Name: "hot-a", Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return gen, nil })
		p.MustRegister(abi.ToolDef{Name: "cold", Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return gen, nil })
		return p
	}
	if err := te.h.AddProvider(context.Background(), mk("v1"), ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	var okA, okCold atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := te.h.ReplaceProvider(context.Background(), mk("v"+strings.Repeat("x", i%3)), ProviderMeta{Trust: abi.System}); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	var callers sync.WaitGroup
	for g := range 8 {
		callers.Add(1)
		go func() {
			defer callers.Done()
			tool := "hot-a"
			if g%2 == 1 {
				tool = "cold"
			}
			for range 20 {
				_, err := te.call("alice", tool, nil)
				switch {
				case (err == nil || closedRace(err)) && tool == "hot-a":
					okA.Add(1)
				case err == nil || closedRace(err):
					okCold.Add(1)
				case abi.CodeOf(err) != abi.RateLimited:
					t.Errorf("%s: %v", tool, err)
				}
			}
		}()
	}
	callers.Wait()
	close(stop)
	wg.Wait()
	if okA.Load() > 20 || okA.Load()+okCold.Load() > 30 {
		t.Fatalf("admitted hot-a %d, cold %d (calls that met a just-closed provider included): over hot-* 20 or the provider's 30 across reloads", okA.Load(), okCold.Load())
	}
	rest := 30 - okA.Load() - okCold.Load()
	for i := int64(0); i < rest; i++ {
		if _, err := te.call("alice", "cold", nil); err != nil {
			t.Fatalf("cold %d of the provider's %d left: %v", i, rest, err)
		}
	}
	if _, err := te.call("alice", "cold", nil); abi.CodeOf(err) != abi.RateLimited {
		t.Fatalf("past the provider's burst after reloads: %v", err)
	}
}

// TestRefuse: Host.Refuse, for a front end's own limits, audits and
// reports the call refused with the reason given, spends no token and
// runs nothing; an unknown tool is still NotFound.
func TestRefuse(t *testing.T) {
	te := newTestHost(t, nil) // limited: one token
	var codes []abi.ErrorCode
	defer te.h.OnCall(func(st CallStats) { codes = append(codes, st.Code) })()
	why := abi.Errorf(abi.RateLimited, "front end limit")
	_, err := te.h.Refuse(context.Background(), &abi.ToolCall{Caller: "limited", Tool: "panic"}, why)
	if err != why {
		t.Fatalf("Refuse: %v, want the reason given", err)
	}
	if _, err := te.h.Refuse(context.Background(), &abi.ToolCall{Caller: "limited", Tool: "nope"}, why); abi.CodeOf(err) != abi.NotFound {
		t.Fatalf("Refuse of an unknown tool: %v", err)
	}
	if _, err := te.call("limited", "whoami", nil); err != nil {
		t.Fatalf("limited's token after a refusal: %v", err)
	}
	if len(codes) != 3 || codes[0] != abi.RateLimited || codes[1] != abi.NotFound || codes[2] != "" {
		t.Fatalf("observed codes %v", codes)
	}
	if err := te.h.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(te.audit)
	if !strings.Contains(string(data), `"error":"front end limit"`) || strings.Contains(string(data), "panicked") {
		t.Fatalf("audit:\n%s", data)
	}
}
