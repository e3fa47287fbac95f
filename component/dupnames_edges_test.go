package component

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// twoConstsModule is a core module exporting a: () -> i32 (1) and
// b: () -> i32 (2).
func twoConstsModule() []byte {
	return cat([]byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00},
		coreSec(1, []byte{0x01, 0x60, 0x00, 0x01, 0x7f}),
		coreSec(3, []byte{0x02, 0x00, 0x00}),
		coreSec(7, cat([]byte{0x02}, str("a"), []byte{0x00, 0x00}, str("b"), []byte{0x00, 0x01})),
		coreSec(10, []byte{0x02, 0x04, 0x00, 0x41, 0x01, 0x0b, 0x04, 0x00, 0x41, 0x02, 0x0b}))
}

// twoFuncsComponent lifts a and b of twoConstsModule as func() -> u32
// (component funcs 0 and 1) and adds the sections given.
func twoFuncsComponent(extra ...[]byte) []byte {
	b := comp(
		sec(1, twoConstsModule()),
		sec(2, []byte{0x00, 0x00, 0x00}),
		sec(6, cat([]byte{0x00, 0x00, 0x01, 0x00}, str("a")), cat([]byte{0x00, 0x00, 0x01, 0x00}, str("b"))),
		sec(7, []byte{0x40, 0x00, 0x00, 0x79}),
		sec(8, []byte{0x00, 0x00, 0x00, 0x00, 0x00}, []byte{0x00, 0x00, 0x01, 0x00, 0x00}),
	)
	return cat(append([][]byte{b}, extra...)...)
}

// TestDuplicateExportNames: the Component Model requires the export
// names of a component and of an instance to be strongly-unique
// (Explainer.md, "Name Uniqueness"; wasmparser refuses the binary). An
// inline instance exporting a (1) and b (2) both as "f", exported as the
// interface x:y/z, loaded: the second "f" silently replaced the first, and
// the component got two tools, z.f and x_y_z.f, both calling b (a was
// lost). Such a component must fail the load naming the name; so must two
// top-level exports, a function and a type, two names equal but for case,
// and an instance type declaring one name twice.
func TestDuplicateExportNames(t *testing.T) {
	inline := func(n1, n2 string) []byte {
		return sec(5, cat([]byte{0x01, 0x02}, []byte{0x00}, str(n1), []byte{0x01, 0x00}, []byte{0x00}, str(n2), []byte{0x01, 0x01}))
	}
	exportInst := sec(11, cat([]byte{0x00}, str("x:y/z"), []byte{0x05, 0x00, 0x00}))
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"inline instance", twoFuncsComponent(inline("f", "f"), exportInst), `"f"`},
		{"inline instance, case", twoFuncsComponent(inline("run", "RUN"), exportInst), `"RUN"`},
		{"top level", twoFuncsComponent(sec(11,
			cat([]byte{0x00}, str("f"), []byte{0x01, 0x00, 0x00}),
			cat([]byte{0x00}, str("f"), []byte{0x01, 0x01, 0x00}))), `"f"`},
		{"top level, function and type", twoFuncsComponent(sec(11,
			cat([]byte{0x00}, str("f"), []byte{0x01, 0x00, 0x00}),
			cat([]byte{0x00}, str("f"), []byte{0x03, 0x00, 0x00}))), `"f"`},
		{"instance type", twoFuncsComponent(sec(7, cat([]byte{0x42, 0x03, 0x01, 0x40, 0x00, 0x00, 0x79},
			[]byte{0x04, 0x00}, str("f"), []byte{0x01, 0x00}, []byte{0x04, 0x00}, str("f"), []byte{0x01, 0x00})),
			sec(10, cat([]byte{0x00}, str("x:y/w"), []byte{0x05, 0x01}))), `"f"`},
		{"top level interfaces", twoFuncsComponent(inline("f", "g"), sec(11,
			cat([]byte{0x00}, str("x:y/z"), []byte{0x05, 0x00, 0x00}),
			cat([]byte{0x00}, str("x:y/Z"), []byte{0x05, 0x00, 0x00}))), `"x:y/Z"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(context.Background(), c.b, "dup.wasm", "", Options{CacheDir: t.TempDir()})
			if err == nil {
				var tools []string
				for _, d := range p.Describe().Tools {
					tools = append(tools, d.Name)
				}
				p.Close()
				t.Fatalf("loaded, tools %v", tools)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "unique") {
				t.Fatalf("err = %v, want it to say the name %s is not unique", err, c.want)
			}
		})
	}
	// Names that differ are served, each by its own function.
	p, err := New(context.Background(), twoFuncsComponent(inline("f", "g"), exportInst), "ok.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for tool, want := range map[string]string{"f": "1", "g": "2"} {
		v, err := call(t, p, &fakeEnv{}, tool, nil)
		if err != nil || fmt.Sprint(v) != want {
			t.Errorf("%s: %v %v, want %s", tool, v, err, want)
		}
	}
}
