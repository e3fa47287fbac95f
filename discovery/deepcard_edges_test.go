package discovery

import (
	"strings"
	"testing"
)

// TestDeepCardSaysHowDeep: a card nested deeper than 256 levels is
// refused as not I-JSON, naming the depth and where. Past 10000 levels
// (encoding/json's own limit) it was refused as "not JSON: invalid
// character '{' exceeded max depth", which calls well-formed JSON
// malformed and names neither limit; it is refused as at 300 levels now.
func TestDeepCardSaysHowDeep(t *testing.T) {
	for _, n := range []int{300, 20000} {
		inner := strings.Repeat(`{"not":`, n) + `{}` + strings.Repeat(`}`, n)
		card := `{"adapter": {"id": "org.example.a", "name": "A", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "a", "name": "a", "permission_level": "low", "input_schema": {"type": "object", "properties": {"x": ` + inner + `}}}],
  "endpoints": {"rpc": "unix:///run/a.sock"}}`
		_, err := ParseCard([]byte(card), "plugins/a/adapter.json")
		if err == nil || !strings.Contains(err.Error(), "plugins/a/adapter.json") || !strings.Contains(err.Error(), "nested deeper than 256 levels") ||
			!strings.Contains(err.Error(), "line 2, column") || strings.Contains(err.Error(), "not JSON") {
			t.Errorf("depth %d: err = %v, want one naming the card, where and the limit of 256 levels", n, err)
		}
	}
}
