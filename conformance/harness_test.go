package conformance

import (
	"context"
	"errors"
	"fmt"
	"github.com/aios-host/aios-host/internal/testutil"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/space"

	nativeconf "github.com/aios-host/aios-host/samples/native/conformance"
)

// fixture is one runtime's entry in the matrix.
type fixture struct {
	// Runtime is the matrix row name: native, wasm, component, js, ts,
	// python, mcp, or an engine-specific name such as wasm@wasmtime.
	Runtime string
	// Load returns a fresh conformance provider (id
	// org.aios.conformance.<runtime>, asking for CallTool(*) only). It
	// fails with a message saying "run `make samples`" when a built
	// artifact is missing (see artifact).
	Load func(t *testing.T) (abi.Provider, error)
	// Trust is the level the provider is added with (Untrusted, the level
	// of unsigned code, unless set).
	Trust abi.TrustLevel
	// Names, when set, maps a contract tool name (one of contractTools) to
	// the name the fixture's provider registers it under; the behaviours
	// call the mapped names (the MCP bridge, for instance, registers echo
	// as mcp-conformance-echo). Peer tools are never mapped.
	Names func(tool string) string
	// NotApplicable lists behaviours that cannot apply to this runtime,
	// each with the reason; they print as `RUNTIME BEHAVIOUR N/A (reason)`
	// instead of running. Use it only when the behaviour is truly
	// impossible for the runtime, and document it in README.md.
	NotApplicable map[string]string
}

// contractTools are the tool names every conformance provider offers.
var contractTools = map[string]bool{
	"echo": true, "add": true, "fail": true, "sleep": true, "crash": true, "secret": true, "nested": true,
}

// namesKey is the context key of a fixture's Names mapping.
type namesKey struct{}

var (
	fixturesMu sync.Mutex
	fixtures   []fixture
)

// addFixture adds a runtime to the matrix; call it from an init function
// in conformance/<runtime>_test.go.
func addFixture(f fixture) {
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	fixtures = append(fixtures, f)
}

// repoRoot walks up from the working directory to the directory holding
// go.mod.
// artifact returns the path of a built sample under build/ (rel is
// relative to build/), or an error telling to run `make samples`.
func artifact(t *testing.T, rel string) (string, error) {
	p := filepath.Join(testutil.RepoRoot(t), "build", rel)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s is missing: run `make samples` first (%v)", p, err)
	}
	return p, nil
}

// The behaviours, in matrix order.
var behaviours = []struct {
	name string
	run  func(ctx context.Context, h *host.Host) error
}{
	{"echo-types", echoTypes},
	{"add", addTwo},
	{"add-whole-floats", addWholeFloats},
	{"tool-error", toolError},
	{"invalid-params", invalidParams},
	{"capability-denied", capabilityDenied},
	{"timeout", timeoutThenServe},
	{"timeout-huge", timeoutHuge},
	{"crash", crashThenServe},
	{"payload-1mib", payload1MiB},
	{"nested-attenuated", nestedAttenuated},
	{"nested-values", nestedValues},
	{"concurrent-100", concurrent100},
}

// harnessConfig is the config every fixture's host runs with.
func harnessConfig(dataDir string) *config.Config {
	cfg := config.Default()
	cfg.Data = dataDir
	cfg.Agents = map[string]config.Agent{
		"tester": {Grants: []string{"CallTool(*)", "ReadSpace(secret)"}},
		"nobody": {Grants: []string{"CallTool(*)"}},
	}
	cfg.Limits.MaxParamsBytes = 8 << 20
	cfg.Limits.MaxResultBytes = 8 << 20
	cfg.Limits.DefaultDeadline = 10 * time.Second
	return cfg
}

// newHarnessHost builds a fresh host with the peer provider loaded.
func newHarnessHost(t *testing.T) *host.Host {
	t.Helper()
	return newHarnessHostDeadline(t, 0)
}

// newHarnessHostDeadline is newHarnessHost whose calls without a deadline
// of their own (nested calls too) get d (harnessConfig's when 0).
func newHarnessHostDeadline(t *testing.T, d time.Duration) *host.Host {
	t.Helper()
	dir := t.TempDir()
	st, err := space.Open(filepath.Join(dir, "spaces"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := harnessConfig(dir)
	if d > 0 {
		cfg.Limits.DefaultDeadline = d
	}
	h, err := host.New(host.Options{Config: cfg, Spaces: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	if err := h.AddProvider(context.Background(), nativeconf.NewPeer(), host.ProviderMeta{Source: "samples/native/conformance", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestConformance(t *testing.T) {
	fixturesMu.Lock()
	list := append([]fixture(nil), fixtures...)
	fixturesMu.Unlock()
	if len(list) == 0 {
		t.Fatal("no runtime fixtures registered")
	}
	for _, fx := range list {
		t.Run(fx.Runtime, func(t *testing.T) {
			h := newHarnessHost(t)
			p, err := fx.Load(t)
			if err == nil {
				err = h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "conformance fixture " + fx.Runtime, Trust: fx.Trust})
				if err != nil {
					_ = p.Close()
				}
			}
			for name := range fx.NotApplicable {
				if !knownBehaviour(name) {
					t.Errorf("fixture %s: NotApplicable names %q, which is not a behaviour", fx.Runtime, name)
				}
			}
			if err != nil {
				for _, b := range behaviours {
					if reason, na := fx.NotApplicable[b.name]; na {
						fmt.Printf("%s %s N/A (%s)\n", fx.Runtime, b.name, reason)
						continue
					}
					fmt.Printf("%s %s FAIL\n", fx.Runtime, b.name)
				}
				t.Fatalf("loading the %s conformance provider: %v", fx.Runtime, err)
			}
			if id := p.Describe().Provider.ID; !strings.HasPrefix(id, "org.aios.conformance.") {
				t.Logf("provider id %q does not follow org.aios.conformance.<runtime>", id)
			}
			for _, b := range behaviours {
				if reason, na := fx.NotApplicable[b.name]; na {
					fmt.Printf("%s %s N/A (%s)\n", fx.Runtime, b.name, reason)
					t.Logf("%s %s is not applicable: %s", fx.Runtime, b.name, reason)
					continue
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				if fx.Names != nil {
					ctx = context.WithValue(ctx, namesKey{}, fx.Names)
				}
				err := runBehaviour(ctx, h, b.run)
				cancel()
				if err != nil {
					fmt.Printf("%s %s FAIL\n", fx.Runtime, b.name)
					t.Errorf("%s %s: %v", fx.Runtime, b.name, err)
				} else {
					fmt.Printf("%s %s PASS\n", fx.Runtime, b.name)
				}
			}
		})
	}
}

func knownBehaviour(name string) bool {
	for _, b := range behaviours {
		if b.name == name {
			return true
		}
	}
	return false
}

// behaviourLimit bounds one behaviour, so a runtime that hangs shows as
// FAIL instead of hanging the whole matrix.
const behaviourLimit = 90 * time.Second

// runBehaviour runs one behaviour, turning a panic in the harness or a
// provider, or a hang, into a failure of that behaviour only.
func runBehaviour(ctx context.Context, h *host.Host, run func(context.Context, *host.Host) error) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v", r)
			}
		}()
		done <- run(ctx, h)
	}()
	t := time.NewTimer(behaviourLimit)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("did not finish within %v (hung provider or runtime)", behaviourLimit)
	}
}

// call runs tool as caller with params. A contract tool name is mapped
// through the fixture's Names (carried by ctx), when it has one.
func call(ctx context.Context, h *host.Host, caller, tool string, params any, deadline time.Duration) (any, error) {
	if names, ok := ctx.Value(namesKey{}).(func(string) string); ok && contractTools[tool] {
		tool = names(tool)
	}
	c := &abi.ToolCall{Caller: caller, Tool: tool, Params: params}
	if deadline > 0 {
		c.Deadline = time.Now().Add(deadline)
	}
	return h.Call(ctx, c)
}

// wantCode checks that err is a ToolError with code and, when contains is
// not empty, a message containing it.
func wantCode(err error, code abi.ErrorCode, contains string) error {
	var te *abi.ToolError
	if !errors.As(err, &te) {
		return fmt.Errorf("want %s, got %v", code, err)
	}
	if te.Code != code {
		return fmt.Errorf("want %s, got %s: %s", code, te.Code, te.Message)
	}
	if contains != "" && !strings.Contains(te.Message, contains) {
		return fmt.Errorf("%s message %q does not contain %q", code, te.Message, contains)
	}
	return nil
}

func echoValue(ctx context.Context, h *host.Host, tool string, v any) error {
	return echoWithin(ctx, h, tool, v, 0)
}

// echoWithin is echoValue with the call's deadline (0: the host's default).
func echoWithin(ctx context.Context, h *host.Host, tool string, v any, deadline time.Duration) error {
	got, err := call(ctx, h, "tester", tool, map[string]any{"value": v}, deadline)
	if err != nil {
		return fmt.Errorf("%s %s: %v", tool, short(v), err)
	}
	want := map[string]any{"value": v}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%s returned %s, want %s", tool, short(got), short(want))
	}
	return nil
}

func short(v any) string {
	s := fmt.Sprintf("%#v", v)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func echoTypes(ctx context.Context, h *host.Host) error {
	values := []any{
		nil, true, false, int64(0), int64(42), int64(-9007199254740993), 3.25, -0.5,
		// The integer edges are exact in every runtime: int64's ends and,
		// above them, uint64's (a u64 id, a component's u64).
		int64(math.MaxInt64), int64(math.MinInt64), uint64(1) << 63, uint64(math.MaxUint64),
		"", "héllo, 世界 🌍 \"quoted\" \\ \n\t",
		[]any{}, []any{int64(1), "two", nil, 3.5, false},
		map[string]any{},
		map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": "d", "n": int64(7)}}}, "x": nil},
	}
	for _, v := range values {
		if err := echoValue(ctx, h, "echo", v); err != nil {
			return err
		}
	}
	return nil
}

func addTwo(ctx context.Context, h *host.Host) error {
	got, err := call(ctx, h, "tester", "add", map[string]any{"a": int64(40), "b": int64(2)}, 0)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(got, map[string]any{"sum": int64(42)}) {
		return fmt.Errorf("add 40+2 returned %s", short(got))
	}
	// The sum is exact where it has a canonical integer (int64, or uint64
	// above), or the call fails: never a wrapped or rounded value.
	for _, tc := range []struct {
		a, b int64
		want any // nil: no canonical integer holds the sum
		may  bool
	}{
		{1 << 53, 1, int64(1<<53 + 1), false}, // past a float64's integers (a JS number)
		{-(1 << 53), -3, int64(-(1 << 53) - 3), false},
		{math.MaxInt64, 1, uint64(1) << 63, true}, // past int64: exact or an error
		{math.MinInt64, -1, nil, false},
	} {
		got, err := call(ctx, h, "tester", "add", map[string]any{"a": tc.a, "b": tc.b}, 0)
		switch {
		case err == nil && tc.want != nil && reflect.DeepEqual(got, map[string]any{"sum": tc.want}):
		case err != nil && (tc.want == nil || tc.may):
			if abi.CodeOf(err) == abi.Internal {
				return fmt.Errorf("add %d+%d: %v, want the provider's error", tc.a, tc.b, err)
			}
		case err != nil:
			return fmt.Errorf("add %d+%d: %v, want %v", tc.a, tc.b, err, tc.want)
		case tc.want == nil:
			return fmt.Errorf("add %d+%d returned %s, want an error (no 64-bit integer holds the sum)", tc.a, tc.b, short(got))
		default:
			return fmt.Errorf("add %d+%d returned %s, want %v", tc.a, tc.b, short(got), tc.want)
		}
	}
	return nil
}

// addWholeFloats: add's operands given as whole floats — integers by JSON
// Schema's "integer" (2.0 is one), which the host validates as such and
// which JSON-RPC clients (`{"a": 2.0}`), Python callers and the host's own
// float64s send — give the exact integer sum, or an error where the
// runtime's integers cannot take them: never a float, never a rounded sum
// (the python provider answered 2^53 given as a float plus 1 with the
// float 2^53, and 1e15 + 1 with the float 1.000000000000001e15).
func addWholeFloats(ctx context.Context, h *host.Host) error {
	for _, tc := range []struct {
		a, b any
		want any
		may  bool // an error is right too
	}{
		{2.0, int64(3), int64(5), false},
		{1e15, int64(1), int64(1e15 + 1), false},
		{-1e15, -2.0, int64(-1e15 - 2), false},
		{float64(1 << 53), int64(1), int64(1<<53 + 1), true}, // a float in exponent form to a JSON peer
		{float64(1 << 60), float64(1 << 60), int64(1 << 61), true},
	} {
		got, err := call(ctx, h, "tester", "add", map[string]any{"a": tc.a, "b": tc.b}, 0)
		switch {
		case err == nil && reflect.DeepEqual(got, map[string]any{"sum": tc.want}):
		case err != nil && tc.may:
			if abi.CodeOf(err) == abi.Internal {
				return fmt.Errorf("add %v+%v: %v, want the provider's error", tc.a, tc.b, err)
			}
		case err != nil:
			return fmt.Errorf("add %v+%v: %v, want %v", tc.a, tc.b, err, tc.want)
		default:
			return fmt.Errorf("add %v+%v returned %s, want the integer %v", tc.a, tc.b, short(got), tc.want)
		}
	}
	return nil
}

func toolError(ctx context.Context, h *host.Host) error {
	_, err := call(ctx, h, "tester", "fail", map[string]any{"message": "the disk is on fire 🔥"}, 0)
	return wantCode(err, abi.ProviderError, "the disk is on fire 🔥")
}

func invalidParams(ctx context.Context, h *host.Host) error {
	// fail with a non-string message would be a ProviderError if the
	// provider ran: InvalidParams proves validation happens first.
	_, err := call(ctx, h, "tester", "fail", map[string]any{"message": int64(5)}, 0)
	if err := wantCode(err, abi.InvalidParams, ""); err != nil {
		return err
	}
	_, err = call(ctx, h, "tester", "add", map[string]any{"a": int64(1)}, 0)
	if err := wantCode(err, abi.InvalidParams, ""); err != nil {
		return fmt.Errorf("add without b: %v", err)
	}
	_, err = call(ctx, h, "tester", "add", map[string]any{"a": int64(1), "b": int64(2), "c": int64(3)}, 0)
	if err := wantCode(err, abi.InvalidParams, ""); err != nil {
		return fmt.Errorf("add with an extra property: %v", err)
	}
	return nil
}

func capabilityDenied(ctx context.Context, h *host.Host) error {
	if _, err := call(ctx, h, "tester", "secret", map[string]any{}, 0); err != nil {
		return fmt.Errorf("secret as tester: %v", err)
	}
	_, err := call(ctx, h, "nobody", "secret", map[string]any{}, 0)
	return wantCode(err, abi.CapabilityDenied, "ReadSpace(secret)")
}

func stillServes(ctx context.Context, h *host.Host, after string) error {
	if err := echoValue(ctx, h, "echo", "still here"); err != nil {
		return fmt.Errorf("after %s the host no longer serves: %v", after, err)
	}
	return nil
}

func timeoutThenServe(ctx context.Context, h *host.Host) error {
	start := time.Now()
	_, err := call(ctx, h, "tester", "sleep", map[string]any{"ms": int64(600_000)}, 300*time.Millisecond)
	if err := wantCode(err, abi.Timeout, ""); err != nil {
		return err
	}
	if d := time.Since(start); d > 5*time.Second {
		return fmt.Errorf("Timeout came after %v for a 300ms deadline", d)
	}
	if got, err := call(ctx, h, "tester", "sleep", map[string]any{"ms": int64(1)}, 0); err != nil || !reflect.DeepEqual(got, map[string]any{"slept": int64(1)}) {
		return fmt.Errorf("a short sleep after the timeout: %s, %v", short(got), err)
	}
	return stillServes(ctx, h, "a timeout")
}

// timeoutHuge: sleep with the largest ms its schema takes that an int64
// holds (2^53, where JS's numbers end, and 2^63-1) and a 300 ms deadline
// ends in Timeout, as 600000 ms does: never a result before the ms passed
// (the Go guest and the MCP server multiplied ms into a time.Duration that
// wrapped negative, and answered {"slept": 9223372036854775807} at once),
// never a ProviderError (JS added a BigInt to Date.now(), a TypeError;
// Python's time.sleep raised OverflowError).
func timeoutHuge(ctx context.Context, h *host.Host) error {
	for _, ms := range []int64{1 << 53, math.MaxInt64} {
		start := time.Now()
		got, err := call(ctx, h, "tester", "sleep", map[string]any{"ms": ms}, 300*time.Millisecond)
		if err == nil {
			return fmt.Errorf("sleep %d ms returned %s after %v, want Timeout", ms, short(got), time.Since(start).Round(time.Millisecond))
		}
		if err := wantCode(err, abi.Timeout, ""); err != nil {
			return fmt.Errorf("sleep %d ms: %v", ms, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			return fmt.Errorf("sleep %d ms: Timeout came after %v for a 300ms deadline", ms, d)
		}
	}
	return stillServes(ctx, h, "a timeout")
}

func crashThenServe(ctx context.Context, h *host.Host) error {
	_, err := call(ctx, h, "tester", "crash", map[string]any{}, 0)
	if err := wantCode(err, abi.ProviderCrashed, ""); err != nil {
		return err
	}
	return stillServes(ctx, h, "a crash")
}

func payload1MiB(ctx context.Context, h *host.Host) error {
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	// The row is about size, not speed: under a loaded -race run the
	// MCP bridge's two JSON hops of 1 MiB passed the default deadline.
	return echoWithin(ctx, h, "echo", string(b), 50*time.Second)
}

func nestedAttenuated(ctx context.Context, h *host.Host) error {
	got, err := call(ctx, h, "tester", "nested", map[string]any{"tool": "peer-echo", "params": map[string]any{"value": "via nested"}}, 0)
	if err != nil {
		return fmt.Errorf("nested → peer-echo as tester: %v", err)
	}
	want := map[string]any{"result": map[string]any{"value": "via nested"}}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("nested → peer-echo returned %s, want %s", short(got), short(want))
	}
	// tester holds ReadSpace(secret), the provider (CallTool(*) only) does
	// not: the nested call runs with the intersection and is refused.
	_, err = call(ctx, h, "tester", "nested", map[string]any{"tool": "peer-secret", "params": map[string]any{}}, 0)
	if err := wantCode(err, abi.CapabilityDenied, "ReadSpace(secret)"); err != nil {
		return fmt.Errorf("nested → peer-secret as tester (attenuation): %v", err)
	}
	_, err = call(ctx, h, "nobody", "nested", map[string]any{"tool": "peer-secret", "params": map[string]any{}}, 0)
	if err := wantCode(err, abi.CapabilityDenied, "ReadSpace(secret)"); err != nil {
		return fmt.Errorf("nested → peer-secret as nobody: %v", err)
	}
	return nil
}

// nestedValues: a nested call's result that is itself a zero value (0,
// "", false, [], {}) or null reaches the provider as that value: nested →
// peer-value returns {"result": v}.
func nestedValues(ctx context.Context, h *host.Host) error {
	for _, v := range []any{int64(0), "", false, []any{}, map[string]any{}, nil, 0.5, "x"} {
		got, err := call(ctx, h, "tester", "nested", map[string]any{"tool": "peer-value", "params": map[string]any{"value": v}}, 0)
		if err != nil {
			return fmt.Errorf("nested → peer-value %s: %v", short(v), err)
		}
		if want := map[string]any{"result": v}; !reflect.DeepEqual(got, want) {
			return fmt.Errorf("nested → peer-value %s returned %s, want %s", short(v), short(got), short(want))
		}
	}
	return nil
}

func concurrent100(ctx context.Context, h *host.Host) error {
	const n = 100
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, b := int64(i), int64(i*1000+7)
			got, err := call(ctx, h, "tester", "add", map[string]any{"a": a, "b": b}, 0)
			if err != nil {
				errs <- fmt.Errorf("call %d: %v", i, err)
				return
			}
			if !reflect.DeepEqual(got, map[string]any{"sum": a + b}) {
				errs <- fmt.Errorf("call %d: %d+%d returned %s", i, a, b, short(got))
			}
		}()
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}
