package component

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// identityComponent lifts the core function f: (i32) -> i32, which returns
// its argument, as type 0, func(a: u32) -> u32, and exports it as "f"
// with the type ascription asc (nil for none). Its types: 0 func(a: u32)
// -> u32, 1 func(a: s32) -> s32, 2 func(b: u32) -> u32, 3 func(a: u32) ->
// u32 again.
func identityComponent(asc []byte) []byte {
	mod := cat([]byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00},
		coreSec(1, []byte{0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f}),
		coreSec(3, []byte{0x01, 0x00}),
		coreSec(7, cat([]byte{0x01}, str("f"), []byte{0x00, 0x00})),
		coreSec(10, []byte{0x01, 0x04, 0x00, 0x20, 0x00, 0x0b}))
	fn := func(param string, t byte) []byte { return cat([]byte{0x40, 0x01}, str(param), []byte{t, 0x00, t}) }
	exp := cat([]byte{0x00}, str("f"), []byte{0x01, 0x00})
	if asc == nil {
		exp = append(exp, 0x00)
	} else {
		exp = cat(exp, []byte{0x01}, asc)
	}
	return comp(
		sec(1, mod),
		sec(2, []byte{0x00, 0x00, 0x00}),
		sec(6, cat([]byte{0x00, 0x00, 0x01, 0x00}, str("f"))),
		sec(7, fn("a", 0x79), fn("a", 0x7a), fn("b", 0x79), fn("a", 0x79)),
		sec(8, []byte{0x00, 0x00, 0x00, 0x00, 0x00}),
		sec(11, exp),
	)
}

// TestExportAscriptionChecked: an export may carry a type
// ascription, which the Component Model requires to equal the exported
// function's type (wasmparser, and so the wasmtime engine, refuse the
// binary). The linker compared the number of parameters only and then
// used the ascribed type: a function lifted as func(a: u32) -> u32 and
// exported as func(a: s32) -> s32 took and returned s32 (-1 went in as
// 0xffffffff and came back as -1), one ascribed func(b: u32) -> u32 took a
// parameter b the function does not have, and an ascription of another
// sort (an instance type on a function) was ignored. Each must fail the
// load, naming the export; an equal type at another index must not.
func TestExportAscriptionChecked(t *testing.T) {
	for _, c := range []struct {
		name string
		asc  []byte
		want string
	}{
		{"s32 for u32", []byte{0x01, 0x01}, "parameter a differs"},
		{"parameter renamed", []byte{0x01, 0x02}, `parameter 0 is "b", not "a"`},
		{"instance type on a function", []byte{0x05, 0x00}, "the func is ascribed a type of sort instance"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(context.Background(), identityComponent(c.asc), "asc.wasm", "", Options{CacheDir: t.TempDir()})
			if err == nil {
				v, cerr := call(t, p, &fakeEnv{}, "f", map[string]any{"a": -1})
				p.Close()
				t.Fatalf("loaded; f(a: -1) = %v %v", v, cerr)
			}
			if !strings.Contains(err.Error(), `export "f"`) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to name export \"f\" and say %q", err, c.want)
			}
		})
	}
	for name, asc := range map[string][]byte{"no ascription": nil, "itself": {0x01, 0x00}, "an equal type": {0x01, 0x03}} {
		p, err := New(context.Background(), identityComponent(asc), "asc.wasm", "", Options{CacheDir: t.TempDir()})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v, err := call(t, p, &fakeEnv{}, "f", map[string]any{"a": 7})
		p.Close()
		if err != nil || fmt.Sprint(v) != "7" {
			t.Errorf("%s: f(a: 7) = %v %v", name, v, err)
		}
	}
}
