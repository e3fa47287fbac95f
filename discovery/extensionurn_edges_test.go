package discovery

import (
	"strings"
	"testing"
)

// TestExtensionURNForm: each of extensions is a URN (seed §2.2:
// urn:aios:ext:priority:1.0). The check was a "urn:" prefix and six
// characters: URN:aios:ext:priority:1.0 — a URN, whose scheme is
// case-insensitive (RFC 8141) — was refused, and urn:ab (no namespace-
// specific string) or "urn:a b:c" passed. URNs pass now and the others
// are refused, naming the member and the form.
func TestExtensionURNForm(t *testing.T) {
	card := func(x string) []byte {
		return []byte(`{"adapter": {"id": "org.example.a", "name": "A", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "endpoints": {"rpc": "unix:///run/a.sock"}, "extensions": ["urn:aios:ext:a:1", "` + x + `"]}`)
	}
	for _, ok := range []string{"urn:aios:ext:priority:1.0", "URN:aios:ext:priority:1.0", "urn:ietf:rfc:8141", "urn:x-aios:y"} {
		if _, err := ParseCard(card(ok), "plugins/a/adapter.json"); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"urn:ab", "urn:a:b", "urn:-ab:c", "urn:a b:c", "urn:ab:", "urn:ab:c d", "priority", "urn::x"} {
		_, err := ParseCard(card(bad), "plugins/a/adapter.json")
		if err == nil || !strings.Contains(err.Error(), "plugins/a/adapter.json") || !strings.Contains(err.Error(), "extensions[1]") ||
			!strings.Contains(err.Error(), "not a URN") {
			t.Errorf("%s: err = %v, want a refusal naming the card and extensions[1]", bad, err)
		}
	}
}
