package instrument

import (
	"bytes"
	"errors"
	"testing"
)

// Hand-assembled modules (the wazero-level behaviour tests live in
// runtimes/wasm and component, which run instrumented guests).
var (
	header = []byte("\x00asm\x01\x00\x00\x00")
	// (module (func (loop br 0)) (export "f" (func 0)))
	loopModule = cat(header,
		[]byte{0x01, 0x04, 0x01, 0x60, 0x00, 0x00}, // type () -> ()
		[]byte{0x03, 0x02, 0x01, 0x00},             // func 0: type 0
		[]byte{0x07, 0x05, 0x01, 0x01, 'f', 0x00, 0x00},
		[]byte{0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b}, // loop br 0 end end
	)
	// (module (table 1 funcref)) : no types, no functions, no exports.
	tableOnly = cat(header, []byte{0x04, 0x04, 0x01, 0x70, 0x00, 0x01})
)

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestModule(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      []byte
		refused bool
		want    [][]byte // byte strings the output must contain
	}{
		{"loop", loopModule, false, [][]byte{[]byte(TickExport), []byte(TickModule), {0x03, 0x40, 0x23}}},
		{"no type, function or export section", tableOnly, false, [][]byte{[]byte(TickExport), {0x60, 0x00, 0x01, 0x7f}}},
		{"too short", header[:4], true, nil},
		{"truncated section", cat(header, []byte{0x01, 0x10, 0x01}), true, nil},
		{"GC type form", cat(header, []byte{0x01, 0x03, 0x01, 0x5f, 0x00}), true, nil},
		{"unknown opcode", cat(header, []byte{0x01, 0x04, 0x01, 0x60, 0x00, 0x00}, []byte{0x03, 0x02, 0x01, 0x00},
			[]byte{0x0a, 0x05, 0x01, 0x03, 0x00, 0xff, 0x0b}), true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Module(tc.in)
			if tc.refused {
				if !errors.Is(err, ErrNotInstrumentable) {
					t.Fatalf("err = %v, want ErrNotInstrumentable", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out[:8], header) {
				t.Fatalf("header %x", out[:8])
			}
			for _, w := range tc.want {
				if !bytes.Contains(out, w) {
					t.Errorf("output %x lacks %x", out, w)
				}
			}
			// Instrumenting twice is refused or yields a module again:
			// never a panic.
			_, _ = Module(out)
		})
	}
}

// FuzzModule: any input is refused or rewritten, never a panic.
func FuzzModule(f *testing.F) {
	f.Add(loopModule)
	f.Add(tableOnly)
	f.Add(header)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Module(data)
	})
}
