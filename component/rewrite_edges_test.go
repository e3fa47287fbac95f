package component

import (
	"context"
	"strings"
	"testing"
)

// TestTruncatedTagImport: a core module whose import section ends
// right after an import's kind byte 0x04 (a tag) made the import rewriting
// slice past the section, and the load failed with "internal error while
// loading: runtime error: slice bounds out of range [10:9]", naming
// neither the module nor the import. It must name both, as for the other
// kinds.
func TestTruncatedTagImport(t *testing.T) {
	for _, kind := range []byte{0x00, 0x02, 0x03, 0x04} {
		mod := cat([]byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00},
			coreSec(2, cat([]byte{0x01}, str("m"), str("t"), []byte{kind})))
		b := comp(sec(1, mod), sec(2, []byte{0x00, 0x00, 0x00}))
		p, err := New(context.Background(), b, "cut.wasm", "", Options{CacheDir: t.TempDir()})
		if err == nil {
			p.Close()
			t.Fatalf("kind %#x: loaded", kind)
		}
		msg := err.Error()
		if strings.Contains(msg, "internal error") || !strings.Contains(msg, `import "m" "t"`) || !strings.Contains(msg, "core instance 0") {
			t.Errorf("kind %#x: %v, want it to name core instance 0 and the import \"m\" \"t\"", kind, msg)
		}
	}
}

// coreSec is a section of a core module: id, size, body.
func coreSec(id byte, b []byte) []byte { return cat([]byte{id}, leb(len(b)), b) }
