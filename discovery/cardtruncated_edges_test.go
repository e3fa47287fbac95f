package discovery

import (
	"strings"
	"testing"
)

// TestTruncatedCardNamesWhere: a card cut short (a half-written
// adapter.json, an editor saving) was refused as "not a JSON object:
// unexpected end of JSON input", naming no place and suggesting the top
// level was something else (found by p166); it says where the text ends
// and that the card ends before its JSON does. A syntax error inside
// names its line and column too, an empty file that it is empty.
func TestTruncatedCardNamesWhere(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"{\n  \"adapter\": {\"id\": \"x\",\n", "line 3, column 1: the card ends before its JSON does"},
		{"{\n  \"adapter\": {\"id\" \"x\"}\n}\n", "line 2, column 20: not JSON: invalid character"},
		{"  \n", "the card file is empty"},
		{"[1]", "not a JSON object"},
	} {
		_, err := ParseCard([]byte(c.data), "adapter.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "adapter.json") {
			t.Errorf("%q: %v; want %q", c.data, err, c.want)
		}
	}
}
