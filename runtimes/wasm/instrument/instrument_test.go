package instrument

import (
	"bytes"
	"errors"
	"slices"
	"strings"
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

// FuzzModule: any input is refused with one of the package's errors or
// rewritten, never a panic; a rewritten module has the import and the
// export the rewrite adds, and its imports are the input's and aios.tick.
func FuzzModule(f *testing.F) {
	f.Add(loopModule)
	f.Add(tableOnly)
	f.Add(header)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Module(data)
		if err != nil {
			if !errors.Is(err, ErrNotInstrumentable) && !errors.Is(err, ErrTableLimit) && !errors.Is(err, ErrReservedExport) {
				t.Fatalf("%x: refused with %v, not one of the package's errors", data, err)
			}
			return
		}
		in, err := Imports(data)
		if err != nil {
			t.Fatalf("%x: rewritten, yet its imports do not read: %v", data, err)
		}
		got, err := Imports(out)
		if err != nil {
			t.Fatalf("%x: the rewrite %x has imports that do not read: %v", data, out, err)
		}
		want := append(in, Import{TickModule, TickImport, KindFunc})
		if len(got) != len(want) {
			t.Fatalf("%x: imports %v after the rewrite, want %v", data, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%x: imports %v after the rewrite, want %v", data, got, want)
			}
		}
		if kinds, err := ExportKinds(out); err != nil || kinds[TickExport] != KindGlobal {
			t.Fatalf("%x: the rewrite exports %v (%v), want %s a global", data, kinds, err, TickExport)
		}
	})
}

// TestModuleRefusesTrailingBytes: a section whose entries end before its
// payload does (bytes after the last entry) is refused as not
// instrumentable, as the code section's were: the rewrite appended its
// type, import, global or export after those bytes, so the tick import
// was read as part of an entry (FuzzModule d9758865aac9447d), or it
// re-encoded the entries without them, so a module the engine refuses as
// written was accepted once rewritten.
func TestModuleRefusesTrailingBytes(t *testing.T) {
	sections := []struct {
		id      byte
		payload []byte
	}{
		{1, []byte{0x01, 0x60, 0x00, 0x00}},                                // type () -> ()
		{2, []byte{0x01, 0x01, 'a', 0x01, 'b', 0x00, 0x00}},                // import "a" "b" (func (type 0))
		{3, []byte{0x01, 0x00}},                                            // func 1: type 0
		{4, []byte{0x01, 0x70, 0x00, 0x01}},                                // table 1 funcref
		{6, []byte{0x01, 0x7f, 0x00, 0x41, 0x00, 0x0b}},                    // global i32 (i32.const 0)
		{7, []byte{0x01, 0x01, 'f', 0x00, 0x01}},                           // export "f" (func 1)
		{9, []byte{0x01, 0x00, 0x41, 0x00, 0x0b, 0x01, 0x01}},              // elem (i32.const 0) func 1
		{10, []byte{0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b}}, // loop br 0 end end
	}
	build := func(junk byte) []byte {
		out := slices.Clone(header)
		for _, s := range sections {
			p := s.payload
			if s.id == junk {
				p = append(slices.Clone(p), 0x00)
			}
			out = append(out, s.id, byte(len(p)))
			out = append(out, p...)
		}
		return out
	}
	if _, err := Module(build(0)); err != nil {
		t.Fatalf("the module as written: %v", err)
	}
	for _, s := range sections {
		if s.id == 3 {
			continue // copied as it is: the engine refuses the bytes
		}
		out, err := Module(build(s.id))
		if !errors.Is(err, ErrNotInstrumentable) {
			t.Errorf("section %d with a byte after its entries: %x, %v; want ErrNotInstrumentable", s.id, out, err)
		} else if !strings.Contains(err.Error(), "trailing bytes") {
			t.Errorf("section %d: %v does not say what is wrong", s.id, err)
		}
	}
	// CapTables, for a module run without the rest of the rewrite,
	// re-encodes the table section alike.
	if out, err := CapTables(build(4)); !errors.Is(err, ErrNotInstrumentable) || !strings.Contains(err.Error(), "trailing bytes in the table section") {
		t.Errorf("CapTables of a table section with a byte after its entries: %x, %v; want ErrNotInstrumentable", out, err)
	}
}
