package abi

import (
	"strings"
	"testing"
)

// TestMemberPathQuoted: an error inside an object member named its path
// with the name as it is: a member "a.b" read as two levels ($.x.a.b) and
// one holding a line break split the message over lines (found for WIT
// maps by p189, the same in abi). A name that is not a plain word is
// quoted: $.x["a.b"].
func TestMemberPathQuoted(t *testing.T) {
	bad := string([]byte{0xff})
	for name, want := range map[string]string{
		"a.b":        `$.x["a.b"].v: `,
		"line\nnext": `$.x["line\nnext"].v: `,
		"":           `$.x[""].v: `,
		"plain_1-x":  `$.x.plain_1-x.v: `,
	} {
		v := map[string]any{"x": map[string]any{name: map[string]any{"v": bad}}}
		_, err := Normalize(v)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("member %q: %v; want the path %s", name, err, want)
		}
	}
}
