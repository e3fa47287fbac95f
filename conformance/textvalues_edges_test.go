package conformance

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// prefixed serves a fixture's provider under other tool names (prefix-name)
// and id, so that the conformance providers of every runtime can be loaded
// into one host side by side and call each other.
type prefixed struct {
	abi.Provider
	prefix string
	reg    *abi.ToolRegister
}

func newPrefixed(p abi.Provider, prefix string) *prefixed {
	d := p.Describe()
	reg := &abi.ToolRegister{Format: d.Format, Provider: d.Provider}
	reg.Provider.ID = d.Provider.ID + "." + prefix
	for _, td := range d.Tools {
		td.Name = prefix + "-" + td.Name
		reg.Tools = append(reg.Tools, td)
	}
	return &prefixed{Provider: p, prefix: prefix, reg: reg}
}

func (p *prefixed) Describe() *abi.ToolRegister { return p.reg }

func (p *prefixed) Call(ctx context.Context, c *abi.ToolCall, env abi.Env) (any, error) {
	cc := *c
	cc.Tool = strings.TrimPrefix(c.Tool, p.prefix+"-")
	return p.Provider.Call(ctx, &cc, env)
}

// loadedFixture is a fixture's provider loaded, prefixed, into a shared
// host.
type loadedFixture struct {
	fx     fixture
	prefix string
}

// tool is the shared host's name of the fixture's contract tool t.
func (l loadedFixture) tool(t string) string {
	if l.fx.Names != nil {
		t = l.fx.Names(t)
	}
	return l.prefix + "-" + t
}

func (l loadedFixture) nests() bool {
	_, na := l.fx.NotApplicable["nested-values"]
	return !na
}

// probeFixtures loads one fixture of each runtime family (JS in process and
// in a worker process: the worker's wire is another codec) into one host.
func probeFixtures(t *testing.T) (*host.Host, []loadedFixture) {
	t.Helper()
	want := map[string]string{
		"native": "nat", "wasm": "wasm", "component": "comp", "js": "js", "js@process": "jsp",
		"python": "py", "mcp": "mcp",
	}
	fixturesMu.Lock()
	list := append([]fixture(nil), fixtures...)
	fixturesMu.Unlock()
	// A minute for every call, nested ones too: a 1 MiB string through
	// an MCP server and back took more than the harness's 10 s under
	// -race on a machine starved of CPU (TestDeepAndBigEveryPair).
	h := newHarnessHostDeadline(t, time.Minute)
	var out []loadedFixture
	for _, fx := range list {
		prefix, ok := want[fx.Runtime]
		if !ok {
			continue
		}
		p, err := fx.Load(t)
		if err != nil {
			t.Fatalf("%s: %v", fx.Runtime, err)
		}
		if err := h.AddProvider(context.Background(), newPrefixed(p, prefix), host.ProviderMeta{Source: "probe " + fx.Runtime, Trust: fx.Trust}); err != nil {
			t.Fatalf("%s: %v", fx.Runtime, err)
		}
		out = append(out, loadedFixture{fx, prefix})
	}
	if len(out) != len(want) {
		t.Fatalf("loaded %d of the %d runtimes", len(out), len(want))
	}
	return h, out
}

// probeValues are values that must cross every runtime pair unchanged.
func probeValues() []any {
	return []any{
		int64(math.MaxInt64), int64(math.MinInt64), int64(1<<53 + 1), int64(-(1<<53 + 1)),
		uint64(1) << 63, uint64(math.MaxUint64),
		0.1, 5e-324, math.MaxFloat64, -math.MaxFloat64, 1e-7, 1e21, float64(1 << 60), 2.5e-308,
		"", "\x00", "a\x00b", "\u2028\u2029", "😀", "\ufeffbom", "\ufffd", "e\u0301",
		[]any{}, map[string]any{}, []any{nil}, []any{[]any{}}, map[string]any{"k": nil},
		map[string]any{"": "empty key", "__proto__": int64(1), "constructor": "c", "toString": "t", "hasOwnProperty": false},
		map[string]any{"1": "a", "01": "b", "-1": "c", "1.0": "d", "4294967295": "e", "a.b": "f"},
		map[string]any{"é": int64(1), "e\u0301": int64(2), "E": int64(3), "e": int64(4)},
		map[string]any{"\x00": "nul key", "a\x00b": "nul inside"},
		map[string]any{"value": "a member named value", "params": map[string]any{"tool": "x"}},
	}
}

// screened: the MCP bridge's screen (mcp.servers.<name>.screen, strip by
// default: docs/mcp.md "Screens") removes control and invisible
// characters (NUL, a BOM) from the strings of an imported tool's result,
// by design.
func screened(y loadedFixture, v any) bool {
	s, ok := v.(string)
	return ok && y.fx.Runtime == abi.RuntimeMCP && strings.ContainsAny(s, "\x00\ufeff")
}

// TestValuesEveryPair: for every runtime X that can call tools and
// every runtime Y, X's nested tool calling Y's echo returns the value the
// test passed, exactly.
func TestValuesEveryPair(t *testing.T) {
	h, fxs := probeFixtures(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, x := range fxs {
		if !x.nests() {
			continue
		}
		for _, y := range fxs {
			t.Run(x.fx.Runtime+"→"+y.fx.Runtime, func(t *testing.T) {
				for _, v := range probeValues() {
					if screened(y, v) {
						continue
					}
					got, err := h.Call(ctx, &abi.ToolCall{Caller: "tester", Tool: x.tool("nested"),
						Params: map[string]any{"tool": y.tool("echo"), "params": map[string]any{"value": abi.Copy(v)}}})
					want := map[string]any{"result": map[string]any{"value": v}}
					if err != nil {
						t.Errorf("%s: %v", short(v), err)
					} else if !reflect.DeepEqual(got, want) {
						t.Errorf("sent %s, got %s", short(v), short(got))
					}
				}
			})
		}
	}
}

// TestValuesThreeHops: X → Y → Z's echo for every triple of runtimes
// (X and Y calling tools), with values whose kind a codec could change.
func TestValuesThreeHops(t *testing.T) {
	h, fxs := probeFixtures(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	values := []any{uint64(math.MaxUint64), int64(math.MinInt64), int64(1<<53 + 1), 0.1, float64(1 << 62), "a😀\u2028",
		map[string]any{"": []any{map[string]any{}}, "__proto__": nil}}
	for _, x := range fxs {
		if !x.nests() {
			continue
		}
		for _, y := range fxs {
			if !y.nests() {
				continue
			}
			for _, z := range fxs {
				t.Run(x.fx.Runtime+"→"+y.fx.Runtime+"→"+z.fx.Runtime, func(t *testing.T) {
					for _, v := range values {
						got, err := h.Call(ctx, &abi.ToolCall{Caller: "tester", Tool: x.tool("nested"),
							Params: map[string]any{"tool": y.tool("nested"), "params": map[string]any{
								"tool": z.tool("echo"), "params": map[string]any{"value": abi.Copy(v)}}}})
						want := map[string]any{"result": map[string]any{"result": map[string]any{"value": v}}}
						if err != nil {
							t.Errorf("%s: %v", short(v), err)
						} else if !reflect.DeepEqual(got, want) {
							t.Errorf("sent %s, got %s", short(v), short(got))
						}
					}
				})
			}
		}
	}
}

// TestWholeAndNegativeZero: whole floats and −0 through every pair.
// The value model has one number type: 1.0 may arrive as 1 (docs/abi.md),
// but it must be the same number; −0 may lose its sign only as JSON does.
func TestWholeAndNegativeZero(t *testing.T) {
	h, fxs := probeFixtures(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	values := []any{1.0, -1.0, math.Copysign(0, -1), 0.0, float64(1<<53 - 1), 1e15, -1e15}
	for _, x := range fxs {
		if !x.nests() {
			continue
		}
		for _, y := range fxs {
			t.Run(x.fx.Runtime+"→"+y.fx.Runtime, func(t *testing.T) {
				for _, v := range values {
					got, err := h.Call(ctx, &abi.ToolCall{Caller: "tester", Tool: x.tool("nested"),
						Params: map[string]any{"tool": y.tool("echo"), "params": map[string]any{"value": v}}})
					if err != nil {
						t.Errorf("%v: %v", v, err)
						continue
					}
					r, _ := got.(map[string]any)["result"].(map[string]any)
					g := r["value"]
					var f float64
					switch n := g.(type) {
					case int64:
						f = float64(n)
					case float64:
						f = n
					default:
						t.Errorf("%v came back as %#v", v, g)
						continue
					}
					if f != v.(float64) {
						t.Errorf("%v came back as %#v", v, g)
					}
					t.Logf("%v → %#v", v, g)
				}
			})
		}
	}
}

// nestArrays is leaf inside n arrays.
func nestArrays(n int, leaf any) any {
	v := leaf
	for range n {
		v = []any{v}
	}
	return v
}

// TestDeepAndBigEveryPair: a value as deep as the outer call's params
// allow (the leaf at level 512 of them: 510 arrays under params.params.value)
// and a 1 MiB string of multi-byte characters cross every pair; one level more is refused at once
// with an error naming the depth.
func TestDeepAndBigEveryPair(t *testing.T) {
	h, fxs := probeFixtures(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	big := strings.Repeat("ab\tç😀", 1<<20/9)
	for _, x := range fxs {
		if !x.nests() {
			continue
		}
		for _, y := range fxs {
			t.Run(x.fx.Runtime+"→"+y.fx.Runtime, func(t *testing.T) {
				for _, v := range []any{nestArrays(510, "leaf"), nestArrays(200, map[string]any{"k": nestArrays(309, int64(1))}), big} {
					// A deadline of a minute, for this call and (the host's
					// default, probeFixtures) its nested one: a 1 MiB string
					// through an MCP server took 10 s of wall time under
					// -race on a machine starved of CPU, though 3.5 s of CPU.
					got, err := h.Call(ctx, &abi.ToolCall{Caller: "tester", Tool: x.tool("nested"), Deadline: time.Now().Add(time.Minute),
						Params: map[string]any{"tool": y.tool("echo"), "params": map[string]any{"value": v}}})
					want := map[string]any{"result": map[string]any{"value": v}}
					if err != nil {
						t.Errorf("%s: %.400v", short(v), err)
					} else if !reflect.DeepEqual(got, want) {
						t.Errorf("sent %s, got %s", short(v), short(got))
					}
				}
				_, err := h.Call(ctx, &abi.ToolCall{Caller: "tester", Tool: x.tool("nested"),
					Params: map[string]any{"tool": y.tool("echo"), "params": map[string]any{"value": nestArrays(511, "leaf")}}})
				if err := wantCode(err, abi.InvalidParams, "deeper than 512"); err != nil {
					t.Errorf("511 levels: %v", err)
				}
			})
		}
	}
}
