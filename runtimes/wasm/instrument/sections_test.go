package instrument

import (
	"errors"
	"reflect"
	"testing"
)

// importModule imports a function, a table, a memory, a global of the
// typed reference type (ref null 0) — a heap type index after 0x63, which
// a reader skipping two bytes for a global's type misreads — and a tag,
// then defines a memory of 3 pages.
var importModule = cat(header,
	[]byte{0x01, 0x04, 0x01, 0x60, 0x00, 0x00}, // type 0: () -> ()
	[]byte{0x02, 0x29, 0x05,
		0x01, 'm', 0x01, 'f', KindFunc, 0x00,
		0x01, 'm', 0x01, 't', KindTable, 0x70, 0x00, 0x01,
		0x01, 'm', 0x03, 'm', 'e', 'm', KindMemory, 0x01, 0x01, 0x02,
		0x01, 'm', 0x01, 'g', KindGlobal, 0x63, 0x80, 0x00, 0x00, // (ref null 0) as a two-byte LEB, immutable
		0x01, 'm', 0x01, 'x', KindTag, 0x00, 0x00,
	},
	[]byte{0x05, 0x03, 0x01, 0x00, 0x03}, // memory: min 3
)

// TestImportsAndMemoryMin: the runtime's checks (runtimes/wasm/module.go)
// read a module's imports and memory with this package's reader, which
// the rewrite uses too, rather than a walker of their own.
func TestImportsAndMemoryMin(t *testing.T) {
	got, err := Imports(importModule)
	want := []Import{{"m", "f", KindFunc}, {"m", "t", KindTable}, {"m", "mem", KindMemory}, {"m", "g", KindGlobal}, {"m", "x", KindTag}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Imports = %v, %v; want %v", got, err, want)
	}
	if pages, ok, err := MemoryMin(importModule); pages != 3 || !ok || err != nil {
		t.Fatalf("MemoryMin = %d, %v, %v; want 3, true", pages, ok, err)
	}
	if pages, ok, err := MemoryMin(loopModule); ok || err != nil {
		t.Fatalf("MemoryMin of a module without memory = %d, %v, %v; want none", pages, ok, err)
	}
	if names := KindName(KindGlobal) + " " + KindName(KindMemory) + " " + KindName(9); names != "global memory kind 0x09" {
		t.Fatalf("KindName: %q", names)
	}
	// Cut anywhere inside the import section: an error, never a panic
	// or a wrong list.
	for n := len(header) + 8; n < len(header)+6+2+0x29; n++ {
		got, err := Imports(importModule[:n])
		if !errors.Is(err, ErrNotInstrumentable) {
			t.Fatalf("Imports of %d bytes = %v, %v; want an error", n, got, err)
		}
	}
}

// FuzzImports: any input gives a list or an error, never a panic.
func FuzzImports(f *testing.F) {
	f.Add(importModule)
	f.Add(loopModule)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Imports(data)
		_, _, _ = MemoryMin(data)
	})
}
