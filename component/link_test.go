package component

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

func leb(n int) []byte {
	var out []byte
	for {
		b := byte(n & 0x7f)
		n >>= 7
		if n != 0 {
			out = append(out, b|0x80)
			continue
		}
		return append(out, b)
	}
}

func str(s string) []byte { return append(leb(len(s)), s...) }

func sec(id byte, items ...[]byte) []byte {
	b := leb(len(items))
	for _, x := range items {
		b = append(b, x...)
	}
	if id == 1 {
		b = items[0]
	}
	return append(append([]byte{id}, leb(len(b))...), b...)
}

func comp(sections ...[]byte) []byte {
	b := []byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00}
	for _, s := range sections {
		b = append(b, s...)
	}
	return b
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

var emptyModule = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}

// base: type 0 = func() -> u32, type 1 = record{a: u32}, core module 0,
// core instance 0, core func 0 = alias "f", core memory 0 = alias "memory".
func base(extra ...[]byte) []byte {
	s := []byte{}
	s = append(s, comp(
		sec(7, []byte{0x40, 0x00, 0x00, 0x79}, cat([]byte{0x72, 0x01}, str("a"), []byte{0x79}), []byte{0x3f, 0x7f, 0x00}),
		sec(1, emptyModule),
		sec(2, []byte{0x00, 0x00, 0x00}),
		sec(6, cat([]byte{0x00, 0x00, 0x01, 0x00}, str("f")), cat([]byte{0x00, 0x02, 0x01, 0x00}, str("memory"))),
	)...)
	for _, e := range extra {
		s = append(s, e...)
	}
	return s
}

func TestLinkRefuses(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"bad core func index", base(sec(8, []byte{0x00, 0x00, 0x07, 0x00, 0x00})), "core func index 7 out of range"},
		{"bad type index", base(sec(8, []byte{0x00, 0x00, 0x00, 0x00, 0x09})), "type index 9 out of range"},
		{"type mismatch", base(sec(8, []byte{0x00, 0x00, 0x00, 0x00, 0x01})), "not a function type"},
		{"empty record", comp(sec(7, []byte{0x72, 0x00})), "record without fields"},
		{"async lift", base(sec(8, []byte{0x00, 0x00, 0x00, 0x01, 0x06, 0x00})), "async"},
		{"resource.new", base(sec(8, []byte{0x02, 0x02})), "resource.new: resources are not supported"},
		{"multiple memories", base(sec(6, cat([]byte{0x00, 0x02, 0x01, 0x00}, str("memory2")))), "multiple memories"},
		{"bad core instance", base(sec(6, cat([]byte{0x00, 0x00, 0x01, 0x05}, str("g")))), "core instance index 5 out of range"},
		{"bad lower", base(sec(8, []byte{0x01, 0x00, 0x03, 0x00})), "func index 3 out of range"},
		{"missing core export", base(sec(8, []byte{0x00, 0x00, 0x00, 0x00, 0x00}), sec(11, cat([]byte{0x00}, str("run"), []byte{0x01, 0x00, 0x00}))), `no function "f"`},
		{"unknown import", cat(comp(sec(7, []byte{0x40, 0x00, 0x01, 0x00}), sec(10, cat([]byte{0x00}, str("launch-missiles"), []byte{0x01, 0x00})), sec(8, []byte{0x01, 0x00, 0x00, 0x00}))), `"launch-missiles", which aios-host does not provide`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(context.Background(), tc.b, "bad.wasm", "", Options{})
			if err == nil {
				p.Close()
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.wasm") {
				t.Fatalf("err = %v, want it to name the file and mention %q", err, tc.want)
			}
		})
	}
}

func FuzzLoadComponent(f *testing.F) {
	f.Add(base())
	f.Add(base(sec(8, []byte{0x00, 0x00, 0x00, 0x00, 0x00}), sec(11, cat([]byte{0x00}, str("run"), []byte{0x01, 0x00, 0x00}))))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			return
		}
		p, err := New(context.Background(), b, "fuzz.wasm", "", Options{})
		if err == nil {
			p.Close()
		}
	})
}

// TestSlowCoreModuleStopped: a component whose core module wazero would take
// about a minute to compile (one function of 60 000 loops) fails to load
// after CompileTimeout, with an error naming the file and the function.
func TestSlowCoreModuleStopped(t *testing.T) {
	slow := testutil.CoreModule(testutil.Repeat(60000, 0x03, 0x40, 0x0b))
	b := comp(sec(1, slow), sec(2, []byte{0x00, 0x00, 0x00}))
	start := time.Now()
	p, err := New(context.Background(), b, "slow.wasm", "", Options{CacheDir: t.TempDir(), CompileTimeout: time.Second})
	took := time.Since(start)
	if err == nil {
		p.Close()
		t.Fatal("loaded")
	}
	for _, want := range []string{"slow.wasm", "core module of instance 0", "longer than 1s", "function 0 has 60000 control-flow nodes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if took > 20*time.Second {
		t.Errorf("the load took %v with a 1s compile timeout", took)
	}
}

// doublingTypes is a type section of n tuple types, each tuple<prev, prev>
// (the first tuple<u32, u32>), then a function type (a: last) -> (): n
// types in a few bytes each, 2^n parts written out.
func doublingTypes(n int) []byte {
	types := [][]byte{{0x6f, 0x02, 0x79, 0x79}}
	for i := 1; i < n; i++ {
		types = append(types, cat([]byte{0x6f, 0x02}, leb(i-1), leb(i-1)))
	}
	types = append(types, cat([]byte{0x40, 0x01}, str("a"), leb(n-1), []byte{0x01, 0x00}))
	return sec(7, types...)
}

// TestExponentialTypesRefused: a component of a few hundred bytes whose
// function types share parts at each of n levels would have a JSON Schema
// (and JSON values) of 2^n parts: building the schema of 20 levels took 5 s
// and 60 would never end. Such exports and imports are refused at load,
// in time linear in the types.
func TestExponentialTypesRefused(t *testing.T) {
	export := func(n int) []byte {
		return comp(doublingTypes(n), sec(1, emptyModule), sec(2, []byte{0x00, 0x00, 0x00}),
			sec(6, cat([]byte{0x00, 0x00, 0x01, 0x00}, str("f")), cat([]byte{0x00, 0x02, 0x01, 0x00}, str("memory"))),
			sec(8, cat([]byte{0x00, 0x00, 0x00, 0x00}, leb(n))),
			sec(11, cat([]byte{0x00}, str("run"), []byte{0x01, 0x00, 0x00})))
	}
	imported := func(n int) []byte {
		return comp(doublingTypes(n), sec(10, cat([]byte{0x00}, str("launch-missiles"), []byte{0x01}, leb(n))),
			sec(8, []byte{0x01, 0x00, 0x00, 0x00}))
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		// 2^14 parts: under the Canonical ABI's size limit, over the parts limit.
		{"export, 14 levels", export(14), "more than 10000 parts"},
		// 2^25 u32s, 128 MiB: just under the size limit. The layout compiler
		// walked every part of it again on each reuse (seconds; under -race,
		// a minute) before the parts limit was reached.
		{"export, 25 levels", export(25), "more than 10000 parts"},
		// 2^64 parts: the Canonical ABI's size limit (2^28 bytes) refuses it first.
		{"export, 64 levels", export(64), "too large"},
		{"import, 64 levels", imported(64), "more than 10000 parts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(context.Background(), tc.b, "dag.wasm", "", Options{})
			if err == nil {
				p.Close()
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "dag.wasm") {
				t.Fatalf("err = %.300v, want it to name the file and say %q", err, tc.want)
			}
		})
	}
}
