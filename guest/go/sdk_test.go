package aios

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
)

var setup sync.Once

func register() {
	setup.Do(func() {
		Register(Provider{ID: "org.test.sdk", Version: "1.0.0", Capabilities: []string{"CallTool(*)"}})
		Handle(Tool{Name: "generic", Parameters: Schema(`{"type":"object"}`), Tags: []string{"t"}}, func(c *Call, p any) (any, error) {
			return map[string]any{"got": p, "id": c.ID, "depth": int64(c.Depth)}, nil
		})
		HandleFunc(Tool{Name: "typed"}, func(c *Call, in struct{ A, B int64 }) (struct {
			Sum int64 `json:"sum"`
		}, error) {
			return struct {
				Sum int64 `json:"sum"`
			}{in.A + in.B}, nil
		})
		HandleRaw(Tool{Name: "raw"}, func(c *Call, params, out []byte) ([]byte, error) {
			return append(out, params...), nil
		})
		Handle(Tool{Name: "fails"}, func(c *Call, p any) (any, error) { return nil, Errorf(NotFound, "no such thing") })
		Handle(Tool{Name: "plainerr"}, func(c *Call, p any) (any, error) { return nil, errors.New("plain") })
		Handle(Tool{Name: "panics"}, func(c *Call, p any) (any, error) { panic("oops") })
		Handle(Tool{Name: "nested"}, func(c *Call, p any) (any, error) { return c.CallTool("x", nil) })
	})
}

func callMsg(t *testing.T, tool string, params any) []byte {
	b, err := wire.AppendValue(nil, map[string]any{"id": "c9", "tool": tool, "params": params, "depth": int64(2)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestServe(t *testing.T) {
	register()
	cases := []struct {
		tool   string
		params any
		value  any
		code   string
	}{
		{"generic", map[string]any{"x": 1.5}, map[string]any{"got": map[string]any{"x": 1.5}, "id": "c9", "depth": int64(2)}, ""},
		{"typed", map[string]any{"a": int64(2), "b": int64(3)}, map[string]any{"sum": int64(5)}, ""},
		{"typed", map[string]any{"a": "two"}, nil, InvalidParams},
		{"raw", []any{"x", nil}, []any{"x", nil}, ""},
		{"fails", nil, nil, NotFound},
		{"plainerr", nil, nil, ProviderError},
		{"panics", nil, nil, ProviderCrashed},
		{"nested", nil, nil, Unavailable},
		{"missing", nil, nil, NotFound},
	}
	for _, c := range cases {
		out := serve(callMsg(t, c.tool, c.params))
		var r abi.ToolResult
		if err := abi.MsgPack.Unmarshal(out, &r); err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if c.code != "" {
			if r.Error == nil || string(r.Error.Code) != c.code {
				t.Fatalf("%s: %+v, want %s", c.tool, r, c.code)
			}
			continue
		}
		if r.Error != nil || !reflect.DeepEqual(r.Value, c.value) {
			t.Fatalf("%s: %#v %v, want %#v", c.tool, r.Value, r.Error, c.value)
		}
	}
	for _, bad := range [][]byte{nil, {0xc1}, {0x81, 0xa4, 't', 'o', 'o', 'l', 0x01}, {0x80}} {
		var r abi.ToolResult
		if err := abi.MsgPack.Unmarshal(serve(bad), &r); err != nil || r.Error == nil {
			t.Fatalf("%x: %+v %v", bad, r, err)
		}
	}
}

func TestRegisterMessage(t *testing.T) {
	register()
	var reg abi.ToolRegister
	if err := abi.MsgPack.Unmarshal(registerMessage(), &reg); err != nil {
		t.Fatal(err)
	}
	if reg.Format != 1 || reg.Provider.ID != "org.test.sdk" || len(reg.Tools) != 7 || reg.Tools[0].Name != "fails" {
		t.Fatalf("%+v", reg)
	}
	for _, tl := range reg.Tools {
		if tl.Name == "generic" && (tl.Parameters["type"] != "object" || tl.Tags[0] != "t") {
			t.Fatalf("%+v", tl)
		}
	}
}

func TestSchemaPanicsOnBadJSON(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "aios.Schema") {
			t.Fatalf("%v", r)
		}
	}()
	Schema(`{"type":`)
}

func BenchmarkServeRaw(b *testing.B) {
	register()
	msg, _ := wire.AppendValue(nil, map[string]any{"id": "c1", "tool": "raw", "params": map[string]any{"value": "hello"}})
	b.ReportAllocs()
	for b.Loop() {
		serve(msg)
	}
}

func BenchmarkServeGeneric(b *testing.B) {
	register()
	msg, _ := wire.AppendValue(nil, map[string]any{"id": "c1", "tool": "generic", "params": map[string]any{"value": "hello"}})
	b.ReportAllocs()
	for b.Loop() {
		serve(msg)
	}
}

// The call's strings come from an arena; once handed out they never
// change, across chunk rollovers, and long or malformed ones are handled.
func TestStrArena(t *testing.T) {
	var a strArena
	long := strings.Repeat("L", arenaMax+1)
	type kept struct{ got, want string }
	var all []kept
	for i := range 3 * arenaChunk / 8 { // several chunks
		want := "id-" + strings.Repeat("x", i%40)
		all = append(all, kept{a.str(wire.AppendString(nil, want)), want})
	}
	all = append(all, kept{a.str(wire.AppendString(nil, long)), long})
	all = append(all, kept{a.str(wire.AppendString(nil, "")), ""})
	all = append(all, kept{a.str([]byte{0xc0}), ""})           // nil: not a string
	all = append(all, kept{a.str([]byte{0xa5, 'a', 'b'}), ""}) // truncated
	for i := 0; i < 100; i++ {
		_ = a.str(wire.AppendString(nil, "overwrite?"))
	}
	for i, k := range all {
		if k.got != k.want {
			t.Fatalf("string %d = %q, want %q", i, k.got, k.want)
		}
	}
}

func BenchmarkServeRawEcho(b *testing.B) {
	register()
	msg := wire.AppendMapHeader(nil, 4)
	msg = wire.AppendString(wire.AppendString(msg, "id"), "h1-123456")
	msg = wire.AppendString(wire.AppendString(msg, "tool"), "raw")
	msg = wire.AppendString(wire.AppendString(msg, "caller"), "bench")
	msg, _ = wire.AppendValue(wire.AppendString(msg, "params"), map[string]any{"value": "hello"})
	b.ReportAllocs()
	for b.Loop() {
		if out := serve(msg); len(out) == 0 {
			b.Fatal("no result")
		}
	}
}

// Raw and generic handlers both see the call's id, caller, parent id and
// version (views of the message for raw handlers, arena strings otherwise).
func TestServeCallFields(t *testing.T) {
	register()
	fields := func(c *Call) []any { return []any{c.ID, c.Caller, c.ParentID, c.Version, int64(c.Depth)} }
	reg.handlers["rawfields"] = &handler{name: "rawfields", raw: func(c *Call, params, out []byte) ([]byte, error) {
		return wire.AppendValue(out, fields(c))
	}}
	reg.handlers["fields"] = &handler{name: "fields", fn: func(c *Call, p any) (any, error) { return fields(c), nil }}
	defer delete(reg.handlers, "rawfields")
	defer delete(reg.handlers, "fields")
	for _, tc := range []struct {
		name string
		msg  map[string]any
		want []any
	}{
		{"all", map[string]any{"id": "h1-7", "caller": "alice", "parent_id": "h1-6", "version": "1.0.0", "depth": int64(1)}, []any{"h1-7", "alice", "h1-6", "1.0.0", int64(1)}},
		{"only id", map[string]any{"id": "x"}, []any{"x", "", "", "", int64(0)}},
		{"not strings", map[string]any{"id": int64(3), "caller": nil}, []any{"", "", "", "", int64(0)}},
	} {
		for _, tool := range []string{"rawfields", "fields"} {
			t.Run(tc.name+"/"+tool, func(t *testing.T) {
				m := map[string]any{"tool": tool, "params": nil}
				for k, v := range tc.msg {
					m[k] = v
				}
				msg, err := wire.AppendValue(nil, m)
				if err != nil {
					t.Fatal(err)
				}
				var r abi.ToolResult
				if err := abi.MsgPack.Unmarshal(serve(msg), &r); err != nil || r.Error != nil || !reflect.DeepEqual(r.Value, tc.want) {
					t.Fatalf("%#v %v %v, want %#v", r.Value, r.Error, err, tc.want)
				}
			})
		}
	}
}
