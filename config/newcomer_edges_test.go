package config

import (
	"strings"
	"testing"
)

// TestUnknownKeySuggestsClosest: a misspelt key (`comand` in an MCP
// server entry, `max_deph`) listed the known keys without saying which was
// meant (only a different case or `-`/`_` got a "did you mean"); it now
// names the closest key.
func TestUnknownKeySuggestsClosest(t *testing.T) {
	for doc, want := range map[string]string{
		"limits:\n  max_call_deph: 3\n":     `did you mean "max_call_depth"?`,
		"inference:\n  urll: http://x\n":    `did you mean "url"?`,
		"agents:\n  cli:\n    grantz: []\n": `did you mean "grants"?`,
	} {
		_, err := Parse([]byte(doc), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want %s", doc, err, want)
		}
	}
	// Nothing close: no guess.
	if _, err := Parse([]byte("limits:\n  zzzzzzzz: 1\n"), "c.yaml"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("unrelated key: %v", err)
	}
}
