package config

import (
	"strings"
	"testing"
	"unicode/utf16"
)

// TestBadByteLine: yaml.v3's reader names no line for a byte that is not
// UTF-8 or a control character, so the error said line 1 wherever it was
// (a comment saved in Latin-1 at line 3, a NUL at the end of line 2) and
// not which byte. The error names the line and column of the first such
// character and what it is; a UTF-16 file with its byte-order mark is
// still read.
func TestBadByteLine(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"limits:\n  max_call_depth: 3\n# Gr\xf6\xdfe\n", "c.yaml:3: YAML syntax: invalid trailing UTF-8 octet (column 5: byte 0xF6 is not UTF-8; save the file as UTF-8)"},
		{"data: \"/srv/\xff\"\n", "c.yaml:1: YAML syntax: invalid leading UTF-8 octet (column 13: byte 0xFF is not UTF-8; save the file as UTF-8)"},
		{"limits:\n  max_call_depth: 3\x00\n", "c.yaml:2: YAML syntax: control characters are not allowed (column 20: U+0000 is a control character)"},
		{"limits:\n  max_call_depth: 3\n# \u00e9t\u00e9 \x1b[31m\n", "c.yaml:3: YAML syntax: control characters are not allowed (column 7: U+001B is a control character)"},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.yaml, err, tc.want)
		}
	}
	u := utf16.Encode([]rune("limits:\r\n  max_call_depth: 3\r\n"))
	b := []byte{0xff, 0xfe}
	for _, r := range u {
		b = append(b, byte(r), byte(r>>8))
	}
	if c, err := Parse(b, "c.yaml"); err != nil || c.Limits.MaxCallDepth != 3 {
		t.Errorf("UTF-16 with its BOM: %v", err)
	}
	// Other syntax errors keep yaml.v3's line.
	if _, err := Parse([]byte("limits:\n  a: [1\n"), "c.yaml"); err == nil || strings.Contains(err.Error(), "column") {
		t.Errorf("unclosed flow sequence: %v", err)
	}
}
