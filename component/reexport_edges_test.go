package component

import (
	"context"
	"strings"
	"testing"
)

// TestReexportedImport: a component may export a function it
// imports. The linker refused that for a function of an exported
// interface ("is not a lifted function") but not for a top-level export:
// the component loaded with a tool whose core function was nil, and each
// call failed with "runtime error: invalid memory address or nil pointer
// dereference" as a ProviderCrashed. The load must fail naming the export.
func TestReexportedImport(t *testing.T) {
	for name, b := range map[string][]byte{
		"function of an imported interface": comp(
			sec(7, cat([]byte{0x42, 0x02, 0x01, 0x40, 0x00, 0x00, 0x79, 0x04, 0x00}, str("f"), []byte{0x01, 0x00})),
			sec(10, cat([]byte{0x00}, str("x:y/w"), []byte{0x05, 0x00})),
			sec(6, cat([]byte{0x01, 0x00, 0x00}, str("f"))),
			sec(11, cat([]byte{0x00}, str("f"), []byte{0x01, 0x00, 0x00}))),
		"imported function": comp(
			sec(7, []byte{0x40, 0x00, 0x00, 0x79}),
			sec(10, cat([]byte{0x00}, str("g"), []byte{0x01, 0x00})),
			sec(11, cat([]byte{0x00}, str("h"), []byte{0x01, 0x00, 0x00}))),
	} {
		t.Run(name, func(t *testing.T) {
			p, err := New(context.Background(), b, "reexport.wasm", "", Options{CacheDir: t.TempDir()})
			if err == nil {
				var got []string
				for _, d := range p.Describe().Tools {
					_, err := call(t, p, &fakeEnv{}, d.Name, nil)
					got = append(got, d.Name+": "+err.Error())
				}
				p.Close()
				t.Fatalf("loaded: %s", strings.Join(got, "; "))
			}
			if !strings.Contains(err.Error(), "is not a lifted function") || !strings.Contains(err.Error(), "export") {
				t.Fatalf("err = %v, want it to name the export and say it is not a lifted function", err)
			}
		})
	}
}
