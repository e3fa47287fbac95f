package audit

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseAnchor: an anchor (aios-host audit verify --anchor, the pruned
// anchor file) reads back as itself from its String, and a refused one is
// named in the error.
func FuzzParseAnchor(f *testing.F) {
	h := "sha256:" + strings.Repeat("0f", 32)
	for _, s := range []string{"1:" + h, "0:" + h, "18446744073709551615:" + h, "18446744073709551616:" + h, "+1:" + h, "01:" + h,
		"1:" + strings.ToUpper(h), "1:sha256:", "1", ":", "1:" + h + "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAnchor(s)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("ParseAnchor(%q): the error does not name it: %v", s, err)
			}
			return
		}
		if a.Seq == 0 {
			t.Fatalf("ParseAnchor(%q) = %+v: record numbers start at 1", s, a)
		}
		b, err := ParseAnchor(a.String())
		if err != nil || b != a {
			t.Fatalf("ParseAnchor(%q) = %+v, whose String %q reads back as %+v, %v", s, a, a.String(), b, err)
		}
	})
}
