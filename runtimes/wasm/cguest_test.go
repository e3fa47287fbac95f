package wasm

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
)

// The guests without an SDK — freestanding C (samples/wasm/c-echo) and
// Rust (samples/wasm/rust-echo, Debian rustc, no crates) — speak
// MessagePack, echo params.value by copying its bytes and add integers.
// Their tools are <prefix>echo and <prefix>add.
type noSDKGuest struct{ file, prefix, id string }

func noSDKGuests() []noSDKGuest {
	return []noSDKGuest{
		{"c-echo", "c-", "org.aios.samples.c-echo"},
		{"rust-echo", "rust-", "org.aios.samples.rust-echo"},
	}
}

func TestNoSDKGuests(t *testing.T) {
	for _, g := range noSDKGuests() {
		t.Run(g.file, func(t *testing.T) { testNoSDKGuest(t, g) })
	}
}

func testNoSDKGuest(t *testing.T, g noSDKGuest) {
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, builtGuest(t, g.file))
	if p.json {
		t.Fatal("the guest registers in MessagePack; calls must go to it in MessagePack")
	}
	if reg := p.Describe(); reg.Provider.ID != g.id || len(reg.Tools) != 2 {
		t.Fatalf("register: %+v %d tools", reg.Provider, len(reg.Tools))
	}
	env := newFakeEnv(p, 2)
	deep := any("bottom")
	for range 100 {
		deep = []any{deep}
	}
	big := strings.Repeat("ü", 1<<19) // 1 MiB of UTF-8
	for _, v := range []any{
		nil, true, false, int64(0), int64(-7), int64(1) << 40, 3.25, "", "a \"quoted\" ☃",
		[]any{int64(1), 2.5, nil, true}, map[string]any{"s": "x", "n": []any{map[string]any{}}},
		deep, big, strings.Repeat("k", 300),
	} {
		got, err := call(p, env, g.prefix+"echo", map[string]any{"value": v}, 5*time.Second)
		if err != nil || !reflect.DeepEqual(got, map[string]any{"value": v}) {
			t.Fatalf("echo %.40v: %.80v %v", v, got, err)
		}
	}
	cases := []struct {
		name   string
		tool   string
		params map[string]any
		want   any
		code   abi.ErrorCode
	}{
		{"add", "add", map[string]any{"a": int64(-5), "b": int64(12)}, map[string]any{"sum": int64(7)}, ""},
		{"add big", "add", map[string]any{"a": int64(1) << 40, "b": int64(-70000)}, map[string]any{"sum": int64(1)<<40 - 70000}, ""},
		{"add integral float", "add", map[string]any{"a": 2.0, "b": int64(3)}, map[string]any{"sum": int64(5)}, ""},
		{"add overflow", "add", map[string]any{"a": int64(1) << 62, "b": int64(1) << 62}, nil, abi.InvalidParams},
		{"add not an integer", "add", map[string]any{"a": "x", "b": int64(1)}, nil, abi.InvalidParams},
		{"add fraction", "add", map[string]any{"a": 1.5, "b": int64(1)}, nil, abi.InvalidParams},
		{"add missing b", "add", map[string]any{"a": int64(1)}, nil, abi.InvalidParams},
		{"echo without value", "echo", map[string]any{"other": int64(1)}, nil, abi.InvalidParams},
		{"unknown tool", "nope", map[string]any{}, nil, abi.NotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := call(p, env, g.prefix+c.tool, c.params, 5*time.Second)
			if c.code != "" {
				if abi.CodeOf(err) != c.code {
					t.Fatalf("got %v %v, want %s", got, err, c.code)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %v %v, want %v", got, err, c.want)
			}
		})
	}
}

// rawCall hands msg to the guest's aios_call as it is (no host encoding)
// and decodes what comes back. The instance goes back to the pool unless
// the result was unusable.
func rawCall(t testing.TB, p *Provider, msg []byte) (v any, guestErr, protoErr *abi.ToolError) {
	t.Helper()
	inst, err := p.get(context.Background(), &abi.ToolCall{Tool: "raw"})
	if err != nil {
		t.Fatal(err)
	}
	ptr, err := inst.input(max(len(msg), 1))
	if err != nil {
		t.Fatal(err)
	}
	if !inst.mem.Write(ptr, msg) {
		t.Fatal("write outside memory")
	}
	inst.stack[0], inst.stack[1] = uint64(ptr), uint64(len(msg))
	if err := inst.fCall.CallWithStack(inst.ctx, inst.stack); err != nil {
		p.discard(inst)
		t.Fatalf("the guest trapped on %x: %v", msg, err)
	}
	data, err := inst.view(inst.stack[0], "result")
	if err != nil {
		p.discard(inst)
		t.Fatalf("the guest returned a bad buffer on %x: %v", msg, err)
	}
	v, guestErr, protoErr = decodeResult(data)
	if protoErr != nil {
		p.discard(inst)
	} else {
		p.put(inst)
	}
	return v, guestErr, protoErr
}

func cCall(tool string, params []byte) []byte {
	b := wire.AppendMapHeader(nil, 3)
	b = wire.AppendString(wire.AppendString(b, "id"), "c1")
	b = wire.AppendString(wire.AppendString(b, "tool"), tool)
	return append(wire.AppendString(b, "params"), params...)
}

func cParams(v any) []byte {
	b, err := wire.AppendValue(wire.AppendString(wire.AppendMapHeader(nil, 1), "value"), v)
	if err != nil {
		panic(err)
	}
	return b
}

// TestNoSDKGuestBadInput: the guests validate what they read. Bad
// MessagePack in every place gets an error result, never a trap or a
// garbage result.
func TestNoSDKGuestBadInput(t *testing.T) {
	for _, g := range noSDKGuests() {
		t.Run(g.file, func(t *testing.T) { testNoSDKGuestBadInput(t, g) })
	}
}

func testNoSDKGuestBadInput(t *testing.T, g noSDKGuest) {
	l := newTestLoader(t, Config{PoolSize: 1}, nil)
	p := load(t, l, builtGuest(t, g.file))
	echo, add := g.prefix+"echo", g.prefix+"add"
	good := cCall(echo, cParams(map[string]any{"k": []any{int64(1), "two"}}))
	deep := bytes.Repeat([]byte{0x91}, 600)
	deep = append(deep, 0xc0)
	cases := []struct {
		name string
		msg  []byte
		code abi.ErrorCode
	}{
		{"empty", nil, abi.InvalidRequest},
		{"not a map", []byte{0x93, 1, 2, 3}, abi.InvalidRequest},
		{"trailing byte", append(append([]byte(nil), good...), 0xc0), abi.InvalidRequest},
		{"no params", wire.AppendString(wire.AppendString(wire.AppendMapHeader(nil, 1), "tool"), echo), abi.InvalidRequest},
		{"tool not a string", append(wire.AppendString(append(wire.AppendString(wire.AppendMapHeader(nil, 2), "tool"), 0x01), "params"), 0x80), abi.InvalidRequest},
		{"params not a map", cCall(echo, []byte{0x92, 1, 2}), abi.InvalidParams},
		{"bin value", cCall(echo, append(wire.AppendString(wire.AppendMapHeader(nil, 1), "value"), 0xc4, 1, 'x')), abi.InvalidRequest},
		{"ext value", cCall(echo, append(wire.AppendString(wire.AppendMapHeader(nil, 1), "value"), 0xd4, 1, 2)), abi.InvalidRequest},
		{"0xc1", cCall(echo, append(wire.AppendString(wire.AppendMapHeader(nil, 1), "value"), 0xc1)), abi.InvalidRequest},
		{"integer key", cCall(echo, append(wire.AppendString(wire.AppendMapHeader(nil, 1), "value"), 0x81, 0x01, 0xc0)), abi.InvalidRequest},
		{"huge array count", cCall(echo, append(wire.AppendString(wire.AppendMapHeader(nil, 1), "value"), 0xdd, 0xff, 0xff, 0xff, 0xff)), abi.InvalidRequest},
		{"huge string length", cCall(echo, append(wire.AppendString(wire.AppendMapHeader(nil, 1), "value"), 0xdb, 0xff, 0xff, 0xff, 0xf0, 'a')), abi.InvalidRequest},
		{"nested past 512", cCall(echo, append(wire.AppendString(wire.AppendMapHeader(nil, 1), "value"), deep...)), abi.InvalidRequest},
		{"add uint64 past int64", cCall(add, []byte{0x82, 0xa1, 'a', 0xcf, 0xff, 0, 0, 0, 0, 0, 0, 0, 0xa1, 'b', 0x01}), abi.InvalidParams},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, gerr, perr := rawCall(t, p, c.msg)
			if perr != nil || gerr == nil || gerr.Code != c.code {
				t.Fatalf("got %v, guest error %v, protocol error %v; want %s", v, gerr, perr, c.code)
			}
		})
	}
	// Every truncation of a good call is refused, and the guest keeps serving.
	for n := range len(good) {
		if v, gerr, perr := rawCall(t, p, good[:n]); perr != nil || gerr == nil {
			t.Fatalf("truncated at %d/%d: %v %v %v", n, len(good), v, gerr, perr)
		}
	}
	if v, gerr, perr := rawCall(t, p, good); gerr != nil || perr != nil || !reflect.DeepEqual(v, map[string]any{"value": map[string]any{"k": []any{int64(1), "two"}}}) {
		t.Fatalf("after the bad calls: %v %v %v", v, gerr, perr)
	}
}

// FuzzCGuestCall: whatever bytes the guests without an SDK get as a call,
// they answer with a well-formed ToolResult and do not trap. (The inputs
// are c-echo calls; the Rust guest gets the same bytes with its tool names.)
func FuzzCGuestCall(f *testing.F) {
	l := newTestLoader(f, Config{PoolSize: 1}, nil)
	p := load(f, l, builtGuest(f, "c-echo"))
	rp := load(f, l, builtGuest(f, "rust-echo"))
	f.Add(cCall("c-echo", cParams("hello")))
	f.Add(cCall("c-echo", cParams(map[string]any{"a": []any{1.5, nil, true, "x"}})))
	f.Add(cCall("c-add", []byte{0x82, 0xa1, 'a', 0x01, 0xa1, 'b', 0xd0, 0x80}))
	f.Add([]byte{0x83, 0xa2, 'i', 'd', 0xa0, 0xa4, 't', 'o', 'o', 'l', 0xdb, 0xff, 0xff})
	f.Add([]byte{0xdf, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, msg []byte) {
		rmsg := bytes.ReplaceAll(bytes.ReplaceAll(msg, []byte("\xa6c-echo"), []byte("\xa9rust-echo")), []byte("\xa5c-add"), []byte("\xa8rust-add"))
		for _, c := range []struct {
			p   *Provider
			msg []byte
		}{{p, msg}, {rp, rmsg}} {
			v, gerr, perr := rawCall(t, c.p, c.msg)
			if perr != nil {
				t.Fatalf("%s: malformed result for %x: %v", c.p.name, c.msg, perr)
			}
			if gerr != nil {
				continue
			}
			// Accepted: it was an echo or add call whose result decodes.
			if _, ok := v.(map[string]any); !ok {
				t.Fatalf("%s: result %v for %x is not a map", c.p.name, v, c.msg)
			}
		}
	})
}
