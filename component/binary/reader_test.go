package binary

import (
	"encoding/hex"
	"strings"
	"testing"
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

func sec(id byte, body ...[]byte) []byte {
	var b []byte
	for _, x := range body {
		b = append(b, x...)
	}
	return append(append([]byte{id}, leb(len(b))...), b...)
}

func vec(n int, items ...[]byte) []byte {
	out := leb(n)
	for _, x := range items {
		out = append(out, x...)
	}
	return out
}

func comp(sections ...[]byte) []byte {
	b := []byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00}
	for _, s := range sections {
		b = append(b, s...)
	}
	return b
}

var coreModule = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}

// A small valid component: a record type, a function type using it, a core
// module instantiated without arguments, a lifted function, an export.
func smallComponent() []byte {
	record := []byte{0x72, 0x02}
	record = append(record, str("name")...)
	record = append(record, 0x73)
	record = append(record, str("n")...)
	record = append(record, 0x79)
	fn := append([]byte{0x40, 0x01}, str("r")...)
	fn = append(fn, 0x00, 0x00, 0x79) // param r: type 0; result u32
	return comp(
		sec(7, vec(2, record, fn)),
		sec(1, coreModule),
		sec(2, vec(1, []byte{0x00, 0x00, 0x00})),
		sec(6, vec(1, append([]byte{0x00, 0x00, 0x01, 0x00}, str("f")...))),
		sec(6, vec(1, append([]byte{0x00, 0x02, 0x01, 0x00}, str("memory")...))),
		sec(8, vec(1, []byte{0x00, 0x00, 0x00, 0x02, 0x03, 0x00, 0x00, 0x01})),
		sec(11, vec(1, append(append([]byte{0x00}, str("run")...), 0x01, 0x00, 0x00))),
	)
}

func TestParseSmall(t *testing.T) {
	c, err := Parse(smallComponent())
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, d := range c.Defs {
		kinds = append(kinds, d.Kind.String())
	}
	want := "type type core module core instance alias alias canon export"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("defs %q, want %q", strings.Join(kinds, " "), want)
	}
	lift := c.Defs[6].Canon
	if lift.Op != CanonLift || lift.Opts.Memory == nil || *lift.Opts.Memory != 0 || lift.Opts.Encoding != UTF8 || lift.Type != 1 {
		t.Fatalf("lift %+v", lift)
	}
	if rec := c.Defs[0].Type; rec.Kind != TypeRecord || len(rec.Labels) != 2 || rec.Types[1].Prim == 0 {
		t.Fatalf("record %+v", rec)
	}
	if e := c.Defs[7].Export; e.Name != "run" || e.Ref.Sort != SortFunc {
		t.Fatalf("export %+v", e)
	}
}

func TestIsComponent(t *testing.T) {
	if !IsComponent(smallComponent()) || IsComponent(coreModule) || IsComponent(nil) {
		t.Fatal("IsComponent misclassifies")
	}
	if _, err := Parse(coreModule); err != ErrNotComponent {
		t.Fatalf("core module: %v", err)
	}
}

func TestParseMalformed(t *testing.T) {
	good := smallComponent()
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"bad version", append([]byte{0x00, 0x61, 0x73, 0x6d, 0x0a, 0x00, 0x01, 0x00}, good[8:]...), "version"},
		{"truncated section", good[:len(good)-3], "truncated"},
		{"unknown section", comp(sec(42, []byte{0})), "unknown section id 42"},
		{"trailing bytes", comp(sec(7, vec(0), []byte{0x99})), "trailing bytes"},
		{"unknown type opcode", comp(sec(7, vec(1, []byte{0x10}))), "section 0 (type) item 0"},
		// More than 32 flags encode valid WIT; the linker refuses them in a
		// component that runs (component TestEmptyTupleAndFlagsRefusedAtRun).
		{"huge vector", comp(sec(7, []byte{0xff, 0xff, 0xff, 0xff, 0x0f})), "longer than"},
		{"thread built-in", comp(sec(8, vec(1, []byte{0x26}))), "thread.index"},
		{"context.get i64", comp(sec(8, vec(1, []byte{0x0a, 0x7e, 0x00}))), "only i32"},
		{"duplicate option", comp(sec(8, vec(1, []byte{0x01, 0x00, 0x00, 0x02, 0x03, 0x00, 0x03, 0x00}))), "duplicate canonical option memory"},
		{"value section", comp(sec(12, vec(0))), "value definitions are not supported"},
		{"bad core module", comp(sec(1, []byte{1, 2, 3})), "core wasm preamble"},
		{"bad nested", comp(sec(4, []byte{0, 0x61, 0x73, 0x6d, 0x0d, 0, 1, 0, 7, 5})), "nested component"},
		{"bad name utf8", comp(sec(11, vec(1, []byte{0x00, 0x02, 0xff, 0xfe}))), "UTF-8"},
		{"bad leb", comp(sec(7, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01})), "LEB128"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestParseEveryTruncation(t *testing.T) {
	good := smallComponent()
	failures := 0
	for n := 9; n < len(good); n++ {
		_, err := Parse(good[:n])
		if err == nil {
			continue // a cut at a section boundary is a valid shorter component
		}
		failures++
		if !strings.Contains(err.Error(), "offset") {
			t.Errorf("cut at %d: error %q does not say where", n, err)
		}
	}
	if failures == 0 {
		t.Fatal("no truncation was refused")
	}
}

func FuzzParseComponent(f *testing.F) {
	f.Add(smallComponent())
	f.Add(comp(sec(7, vec(1, []byte{0x42, 0x01, 0x01, 0x40, 0x00, 0x01, 0x00}))))
	f.Add(comp(sec(4, smallComponent())))
	if b, err := hex.DecodeString(coreTypesHex); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b)
		if err == nil && c == nil {
			t.Fatal("nil component without error")
		}
	})
}

// coreTypes is what wasm-tools assembles (jco's parse, wasm-tools 1.24x)
// from this text: core function and module types at the top level and
// inside a component type, with every kind of module type declaration
// (type, imports of each extern kind, an outer alias, an export).
//
//	(component
//	  (core type (func (param i32 f64) (result i64)))
//	  (core type (module
//	    (type (func))
//	    (import "a" "b" (func (type 0)))
//	    (import "a" "t" (table 1 2 funcref))
//	    (import "a" "g" (global (mut i32)))
//	    (alias outer 1 0 (type))
//	    (export "m" (memory 1))))
//	  (type (component
//	    (core type $m (module (export "f" (func)))))))
const coreTypesHex = "0061736d0d00010003310260027f7c017e50060160000000016101620000000161017401700101020001610167037f01021001010003016d020001070f014101005002016000000301660000"

func TestParseCoreTypes(t *testing.T) {
	good, err := hex.DecodeString(coreTypesHex)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Defs) != 3 || c.Defs[0].Kind != DefCoreType || c.Defs[1].Kind != DefCoreType || c.Defs[2].Kind != DefType {
		t.Fatalf("defs %+v", c.Defs)
	}
	if k := c.Defs[0].Type.Kind; k != TypeCoreFunc {
		t.Errorf("first core type is %v, want a core function type", k)
	}
	if k := c.Defs[1].Type.Kind; k != TypeCoreModule {
		t.Errorf("second core type is %v, want a core module type", k)
	}
	ct := c.Defs[2].Type
	if ct.Kind != TypeComponent || len(ct.Decls) != 1 || ct.Decls[0].Kind != DeclCoreType || ct.Decls[0].Type.Kind != TypeCoreModule {
		t.Fatalf("component type %+v", ct)
	}
	for n := 9; n < len(good); n++ {
		if _, err := Parse(good[:n]); err != nil && !strings.Contains(err.Error(), "offset") {
			t.Errorf("cut at %d: error %q does not say where", n, err)
		}
	}
	// Unknown kinds are refused by name.
	for _, tc := range []struct {
		at   int // offset of the byte to replace
		b    byte
		want string
	}{
		{11, 0x5f, "core type 0x5f is not supported"},
		{19, 0x07, "unknown core module type declaration 0x7"},
		{28, 0x09, "unknown core extern type 0x9"},
		{13, 0x40, "core value type 0x40 is not supported"},
	} {
		bad := append([]byte(nil), good...)
		bad[tc.at] = tc.b
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("byte %d = %#x: err = %v, want %q", tc.at, tc.b, err, tc.want)
		}
	}
}
