package native

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

func panicky(context.Context, any, abi.Env) (any, error) {
	var m map[string]int
	m["boom"] = 1 // nil map write
	return nil, nil
}

func newTestProvider(t *testing.T) *Provider {
	t.Helper()
	p := New(abi.ProviderInfo{ID: "org.test.native"})
	must := func(def abi.ToolDef, h Handler) {
		t.Helper()
		if err := p.Register(def, h); err != nil {
			t.Fatal(err)
		}
	}
	must(abi.ToolDef{Name: "echo"}, func(_ context.Context, params any, _ abi.Env) (any, error) { return params, nil })
	must(abi.ToolDef{Name: "add"}, Typed(func(_ context.Context, in addIn, _ abi.Env) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	}))
	must(abi.ToolDef{Name: "tool-error"}, func(context.Context, any, abi.Env) (any, error) {
		return nil, &abi.ToolError{Code: abi.NotFound, Message: "no such thing"}
	})
	must(abi.ToolDef{Name: "plain-error"}, func(context.Context, any, abi.Env) (any, error) {
		return nil, errors.New("disk on fire")
	})
	must(abi.ToolDef{Name: "sleep"}, func(ctx context.Context, _ any, _ abi.Env) (any, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return "slept", nil
		}
	})
	must(abi.ToolDef{Name: "crash"}, panicky)
	must(abi.ToolDef{Name: "v", Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "one", nil })
	must(abi.ToolDef{Name: "v", Version: "2.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "two", nil })
	return p
}

func TestProviderCall(t *testing.T) {
	p := newTestProvider(t)
	tests := []struct {
		name    string
		call    abi.ToolCall
		timeout time.Duration
		want    any
		code    abi.ErrorCode
		msg     string
	}{
		{name: "echo", call: abi.ToolCall{Tool: "echo", Params: "hi"}, want: "hi"},
		{name: "typed add", call: abi.ToolCall{Tool: "add", Params: map[string]any{"a": int64(2), "b": int64(40)}}, want: int64(42)},
		{name: "typed bad params", call: abi.ToolCall{Tool: "add", Params: map[string]any{"a": "x"}}, code: abi.InvalidParams, msg: "Go type"},
		{name: "tool error passes through", call: abi.ToolCall{Tool: "tool-error"}, code: abi.NotFound, msg: "no such thing"},
		{name: "plain error", call: abi.ToolCall{Tool: "plain-error"}, code: abi.ProviderError, msg: "disk on fire"},
		{name: "deadline", call: abi.ToolCall{Tool: "sleep"}, timeout: 20 * time.Millisecond, code: abi.Timeout},
		{name: "panic", call: abi.ToolCall{Tool: "crash"}, code: abi.ProviderCrashed, msg: "assignment to entry in nil map"},
		{name: "unknown tool", call: abi.ToolCall{Tool: "nope"}, code: abi.NotFound, msg: `"nope"`},
		{name: "version 1", call: abi.ToolCall{Tool: "v", Version: "1.0.0"}, want: "one"},
		{name: "version 2", call: abi.ToolCall{Tool: "v", Version: "2.0.0"}, want: "two"},
		{name: "version default newest registered", call: abi.ToolCall{Tool: "v"}, want: "two"},
		{name: "version unknown", call: abi.ToolCall{Tool: "v", Version: "3.0.0"}, code: abi.NotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			got, err := p.Call(ctx, &tc.call, nil)
			if tc.code != "" {
				var te *abi.ToolError
				if !errors.As(err, &te) || te.Code != tc.code {
					t.Fatalf("err = %v, want code %s", err, tc.code)
				}
				if !strings.Contains(te.Message, tc.msg) {
					t.Fatalf("message %q does not contain %q", te.Message, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m, ok := got.(map[string]any); ok {
				got = m["sum"]
			}
			if got != tc.want {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestPanicData(t *testing.T) {
	p := newTestProvider(t)
	_, err := p.Call(context.Background(), &abi.ToolCall{Tool: "crash"}, nil)
	te := abi.AsToolError(err, abi.Internal)
	data, _ := te.Data.(map[string]any)
	stack, _ := data["stack"].(string)
	if !strings.Contains(stack, "native.panicky") {
		t.Fatalf("stack does not name the panicking function:\n%s", stack)
	}
	if strings.Contains(stack, "runtime.gopanic") || strings.Contains(stack, "(*Provider).Call") {
		t.Fatalf("stack holds runtime or SDK frames:\n%s", stack)
	}
	if data["panic"] == "" {
		t.Fatal("panic value missing")
	}
}

func TestRegisterRefuses(t *testing.T) {
	p := New(abi.ProviderInfo{ID: "org.test.native"})
	ok := func(context.Context, any, abi.Env) (any, error) { return nil, nil }
	if err := p.Register(abi.ToolDef{Name: "a", Version: "1.0.0"}, ok); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		def  abi.ToolDef
		h    Handler
		want string
	}{
		{"duplicate", abi.ToolDef{Name: "a", Version: "1.0.0"}, ok, "registered twice"},
		{"bad name", abi.ToolDef{Name: "bad name"}, ok, "invalid tool name"},
		{"nil handler", abi.ToolDef{Name: "b"}, nil, "nil handler"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := p.Register(tc.def, tc.h)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if n := len(p.Describe().Tools); n != 1 {
		t.Fatalf("Describe lists %d tools after refused registrations, want 1", n)
	}
	if p.Describe().Provider.Runtime != abi.RuntimeNative {
		t.Fatalf("runtime = %q", p.Describe().Provider.Runtime)
	}
}

func TestClose(t *testing.T) {
	p := newTestProvider(t)
	closed := 0
	p.OnClose(func() error { closed++; return nil })
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil || closed != 1 {
		t.Fatalf("second Close: err %v, hooks ran %d times", err, closed)
	}
	_, err := p.Call(context.Background(), &abi.ToolCall{Tool: "echo"}, nil)
	if abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("call after Close: %v", err)
	}
}

func TestTypedPassThrough(t *testing.T) {
	h := Typed(func(_ context.Context, in map[string]any, _ abi.Env) (map[string]any, error) { return in, nil })
	in := map[string]any{"x": int64(1)}
	out, err := h(context.Background(), in, nil)
	if err != nil || out.(map[string]any)["x"] != int64(1) {
		t.Fatalf("out %v err %v", out, err)
	}
	allocs := testing.AllocsPerRun(100, func() { _, _ = h(context.Background(), in, nil) })
	if allocs > 0 {
		t.Fatalf("map pass-through allocates %v times", allocs)
	}
}

func BenchmarkNativeCallEcho(b *testing.B) {
	p := New(abi.ProviderInfo{ID: "org.test.native"})
	p.MustRegister(abi.ToolDef{Name: "echo"}, func(_ context.Context, params any, _ abi.Env) (any, error) { return params, nil })
	call := &abi.ToolCall{Tool: "echo", Params: map[string]any{"msg": "hello"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Call(ctx, call, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNativeCallTyped(b *testing.B) {
	p := New(abi.ProviderInfo{ID: "org.test.native"})
	p.MustRegister(abi.ToolDef{Name: "add"}, Typed(func(_ context.Context, in addIn, _ abi.Env) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	}))
	call := &abi.ToolCall{Tool: "add", Params: map[string]any{"a": int64(1), "b": int64(2)}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Call(ctx, call, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzTypedDecode(f *testing.F) {
	f.Add(`{"a": 1, "b": 2}`)
	f.Add(`{"a": "x"}`)
	f.Add(`[1, 2]`)
	f.Add(`null`)
	f.Add(`{"a": 1e400}`)
	h := Typed(func(_ context.Context, in addIn, _ abi.Env) (addOut, error) { return addOut{Sum: in.A + in.B}, nil })
	f.Fuzz(func(t *testing.T, js string) {
		var params any
		if abi.UnmarshalJSONValue([]byte(js), &params) != nil {
			return
		}
		_, err := h(context.Background(), params, nil)
		if err != nil && abi.CodeOf(err) != abi.InvalidParams {
			t.Fatalf("decode error %v is not InvalidParams", err)
		}
	})
}
