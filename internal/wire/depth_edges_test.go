package wire

import (
	"strings"
	"testing"
)

// A message nested 100 000 levels deep ([[[…]]]) was refused by /rpc, the
// socket and the MCP server as "invalid character '[' exceeded max depth
// (at byte 10001)", naming no depth: not which limit, nor that values may
// nest only 512 levels anyway. It says both, and where.
func TestTooDeepSaysTheLimit(t *testing.T) {
	body := `{"a":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "}"
	msg, off := JSONSyntax([]byte(body))
	for _, w := range []string{"nested deeper than 10000 levels", "512", "at byte 10005"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%q does not say %q", msg, w)
		}
	}
	if off != 10005 {
		t.Errorf("offset %d, want 10005", off)
	}
	// The limit named is encoding/json's: 10000 levels pass, 10001 do not.
	at := func(n int) string { return `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + "}" }
	if msg, _ := JSONSyntax([]byte(at(maxParserDepth))); msg != "" {
		t.Errorf("%d levels: %q", maxParserDepth, msg)
	}
	if msg, _ := JSONSyntax([]byte(at(maxParserDepth + 1))); !strings.Contains(msg, "nested deeper") {
		t.Errorf("%d levels: %q", maxParserDepth+1, msg)
	}
	// Other syntax errors keep the decoder's words.
	if msg, _ := JSONSyntax([]byte(`{"a":}`)); !strings.Contains(msg, "invalid character '}' looking for beginning of value (at byte 6)") {
		t.Errorf("plain syntax error: %q", msg)
	}
}
