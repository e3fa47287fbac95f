package instrument

import (
	"errors"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

func TestMeasure(t *testing.T) {
	loops := testutil.Repeat(5, 0x03, 0x40, 0x0b)                     // 5 nodes
	ifElse := []byte{0x20, 0, 0x04, 0x40, 0x05, 0x0b}                 // if, else: 2
	brIf := []byte{0x02, 0x40, 0x20, 0, 0x0d, 0, 0x0b}                // block, br_if: 2
	brTable := []byte{0x02, 0x40, 0x20, 0, 0x0e, 3, 0, 0, 0, 0, 0x0b} // block + 3 targets + default: 5
	straight := []byte{0x20, 0, 0x41, 1, 0x6a, 0x1a, 0x10, 0}         // no control flow
	// testutil.CoreModule's functions take one parameter: 1 local each.
	for _, tc := range []struct {
		name   string
		bodies [][]byte
		want   Cost
	}{
		{"none", nil, Cost{}},
		{"straight", [][]byte{straight}, Cost{Functions: 1, MaxLocals: 1}},
		{"loops", [][]byte{loops}, Cost{Functions: 1, MaxNodes: 5, MaxLocals: 1, Work: 5 * 6}},
		{"kinds", [][]byte{ifElse, brIf, brTable, loops}, Cost{Functions: 4, MaxNodes: 5, MaxLocals: 1, MaxFunc: 2, Work: 2*3 + 2*3 + 5*6 + 5*6}},
		{"one large", [][]byte{straight, testutil.Repeat(1000, 0x02, 0x40, 0x0b), ifElse}, Cost{Functions: 3, MaxNodes: 1000, MaxLocals: 1, MaxFunc: 1, Work: 1000*1001 + 2*3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := testutil.CoreModule(tc.bodies...)
			got, err := Measure(bin)
			if err != nil {
				t.Fatal(err)
			}
			got.CodeBytes = 0
			if got != tc.want {
				t.Fatalf("Measure = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestMeasureLocals: declared locals and parameters count, times the
// function's nodes.
func TestMeasureLocals(t *testing.T) {
	// (type (func (param i32 i64))) (func (type 0) (local i32 i32 i32) (local f64) loop end loop end)
	body := []byte{0x02, 0x03, 0x7f, 0x01, 0x7c, 0x03, 0x40, 0x0b, 0x03, 0x40, 0x0b, 0x0b}
	bin := cat(header,
		[]byte{0x01, 0x06, 0x01, 0x60, 0x02, 0x7f, 0x7e, 0x00},
		[]byte{0x03, 0x02, 0x01, 0x00},
		append([]byte{0x0a, byte(len(body) + 2), 0x01, byte(len(body))}, body...),
	)
	got, err := Measure(bin)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Cost{Functions: 1, MaxNodes: 2, MaxLocals: 6, Work: 2 * (2 + 6), CodeBytes: len(body) + 2}); got != want {
		t.Fatalf("Measure = %+v, want %+v", got, want)
	}
}

func TestMeasureCountsImports(t *testing.T) {
	// loopModule with one imported function: the loop function is index 1.
	bin := cat(header,
		[]byte{0x01, 0x04, 0x01, 0x60, 0x00, 0x00},
		[]byte{0x02, 0x07, 0x01, 0x01, 'm', 0x01, 'f', 0x00, 0x00}, // import m.f (func 0)
		[]byte{0x03, 0x02, 0x01, 0x00},
		[]byte{0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b},
	)
	got, err := Measure(bin)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Cost{Functions: 1, MaxNodes: 1, MaxFunc: 1, Work: 1, CodeBytes: 9}); got != want { // type () -> (): no locals
		t.Fatalf("Measure = %+v, want %+v", got, want)
	}
}

func TestMeasureRejects(t *testing.T) {
	for name, bin := range map[string][]byte{
		"too short":         header[:4],
		"truncated section": cat(header, []byte{0x01, 0x10, 0x01}),
		"truncated body":    cat(header, []byte{0x0a, 0x04, 0x01, 0x05, 0x00, 0x03}),
		"unknown opcode":    cat(header, []byte{0x0a, 0x05, 0x01, 0x03, 0x00, 0xff, 0x0b}),
		"br_table past end": cat(header, []byte{0x0a, 0x07, 0x01, 0x05, 0x00, 0x0e, 0xff, 0xff, 0x0f}),
	} {
		if _, err := Measure(bin); !errors.Is(err, ErrNotInstrumentable) {
			t.Errorf("%s: err = %v, want ErrNotInstrumentable", name, err)
		}
	}
}

// FuzzMeasure: Measure never panics, and when it reads a module both
// before and after Module's rewrite, it finds the same functions and no
// less work (the rewrite adds an `if` per loop). (Module does not validate: the
// rewrite of a malformed module may be one Measure refuses.)
func FuzzMeasure(f *testing.F) {
	f.Add(loopModule)
	f.Add(tableOnly)
	f.Add(testutil.CoreModule([]byte{0x02, 0x40, 0x20, 0, 0x0e, 2, 0, 0, 0, 0x0b}, testutil.Repeat(3, 0x03, 0x40, 0x0b)))
	f.Fuzz(func(t *testing.T, bin []byte) {
		before, err := Measure(bin)
		if err != nil {
			return
		}
		out, err := Module(bin)
		if err != nil {
			return
		}
		after, err := Measure(out)
		if err != nil {
			return
		}
		if after.Functions != before.Functions || after.Work < before.Work {
			t.Fatalf("before %+v, after the rewrite %+v", before, after)
		}
	})
}
