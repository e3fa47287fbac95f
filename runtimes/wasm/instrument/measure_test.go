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
	for _, tc := range []struct {
		name   string
		bodies [][]byte
		want   Cost
	}{
		{"none", nil, Cost{}},
		{"straight", [][]byte{straight}, Cost{Functions: 1}},
		{"loops", [][]byte{loops}, Cost{Functions: 1, MaxNodes: 5, Work: 25}},
		{"kinds", [][]byte{ifElse, brIf, brTable, loops}, Cost{Functions: 4, MaxNodes: 5, MaxFunc: 2, Work: 4 + 4 + 25 + 25}},
		{"one large", [][]byte{straight, testutil.Repeat(1000, 0x02, 0x40, 0x0b), ifElse}, Cost{Functions: 3, MaxNodes: 1000, MaxFunc: 1, Work: 1000*1000 + 4}},
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
	if want := (Cost{Functions: 1, MaxNodes: 1, MaxFunc: 1, Work: 1, CodeBytes: 9}); got != want {
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
// before and after Module's rewrite, it finds the same functions and one
// more node per loop (the check's `if`). (Module does not validate: the
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
		if after.Functions != before.Functions || after.MaxNodes < before.MaxNodes || after.Work < before.Work {
			t.Fatalf("before %+v, after the rewrite %+v", before, after)
		}
	})
}
