package wasm

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestCutShortModuleSaysTruncated: a module copied only in part (a
// download cut off, a copy still under way) was refused in the words of
// the decoder, "invalid WebAssembly module: section code: read 0-th code
// segment: read body: unexpected EOF" or "… could not read result count:
// EOF", which do not tell an author the file is incomplete (a component
// cut so said "is truncated"). Now the error names the section whose
// bytes run past the end, and the size the file has.
func TestCutShortModuleSaysTruncated(t *testing.T) {
	good := mustWAT(t, `(module (memory (export "memory") 1)
		(func (export "aios_alloc") (param i32) (result i32) (i32.const 1024))
		(func (export "aios_register") (result i64) (i64.const 0))
		(func (export "aios_call") (param i32 i32) (result i64) (i64.const 0))
		(data (i32.const 4096) "`+strings.Repeat("x", 600)+`"))`)
	l := newTestLoader(t, Config{}, nil)
	for _, c := range []struct {
		cut  int
		want string
	}{
		{9, "its type section (id 1) at byte 8 has no size"},
		{len(good) - 100, "its data section (id 11)"},
		{len(good) - 1, "its data section (id 11)"},
	} {
		t.Run(fmt.Sprint(c.cut), func(t *testing.T) {
			path := writeFile(t, "cut.wasm", good[:c.cut])
			_, err := l.Load(context.Background(), abi.Source{Path: path})
			if err == nil {
				t.Fatal("a module cut short loaded")
			}
			msg := err.Error()
			for _, w := range []string{path, "is cut short", c.want, fmt.Sprintf("the file ends after %d bytes", c.cut)} {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\ndoes not say %q", msg, w)
				}
			}
			if strings.Contains(msg, "EOF") {
				t.Errorf("error %q speaks of EOF", msg)
			}
			if _, err := InspectBytes(context.Background(), path, good[:c.cut], Config{}, nil); err == nil || !strings.Contains(err.Error(), "is cut short") {
				t.Errorf("inspect: %v, want it to say the module is cut short", err)
			}
		})
	}
}
