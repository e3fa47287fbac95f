package screen

import (
	"fmt"
	"testing"
)

// Invisible or formatting code points (found by a probe) are stripped
// under strip. Kept on purpose: the zero-width joiner and non-joiner
// (emoji sequences, Persian), the emoji presentation selector U+FE0F, and
// the line and paragraph separators (visible line breaks).
func TestInvisibleCharacters(t *testing.T) {
	var missed []string
	for _, r := range []rune{0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x200E, 0x200F, 0x2061, 0x2062, 0x2063, 0x2064,
		0x3164, 0xFFA0, 0xFE00, 0xFFF9, 0xFFFA, 0xFFFB, 0xE0100, 0xE01EF} {
		s := "a" + string(r) + "b"
		out, fs := Text(s, "", Strip)
		if out == s && len(fs) == 0 {
			missed = append(missed, fmt.Sprintf("U+%04X", r))
		}
	}
	if len(missed) > 0 {
		t.Errorf("kept and unreported under strip: %v", missed)
	}
}

// A string nested deeper than the walk goes is reported (found by a
// probe: it passed refuse unseen).
func TestValueDepth(t *testing.T) {
	var v any = "\x1b]0;owned\x07"
	for range 1100 {
		v = []any{v}
	}
	if _, fs := Value(v, Refuse); len(fs) == 0 {
		t.Errorf("an OSC escape 300 levels deep: no finding, so refuse passes it")
	}
}
