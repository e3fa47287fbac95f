package space

import (
	"errors"
	"strings"
	"testing"
)

// TestProbeSpaceNameErrorNamesTheCharacter: a space name with a
// non-ASCII letter ("é", "docs" with a Cyrillic "о") was refused naming
// one byte of its UTF-8 encoding as a Latin-1 character ('Ã' at 0 for
// "é"), a character the user never typed, at a byte offset; and 40
// such letters were "longer than 64 characters". The error names the
// character itself and its position in characters.
func TestProbeSpaceNameErrorNamesTheCharacter(t *testing.T) {
	cases := []struct{ name, want string }{
		{"é", `character 'é' (U+00E9) at 0`},
		{"e\u0301", `(U+0301) at 1`},            // NFD: e + combining acute
		{"dоcs", `character 'о' (U+043E) at 1`}, // Cyrillic о
		{"a\xffb", `byte 0xff at 1 is not UTF-8`},
		{"Docs", `character 'D' at 0 not allowed`},
		// 40 characters, 80 bytes: not "longer than 64 characters".
		{strings.Repeat("é", 40), `character 'é' (U+00E9) at 0`},
	}
	for _, c := range cases {
		err := ValidateSpaceName(c.name)
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("ValidateSpaceName(%q) = %v, want ErrInvalid", c.name, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("ValidateSpaceName(%q) = %v, want it to say %s", c.name, err, c.want)
		}
	}
}
