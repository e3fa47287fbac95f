package space

import (
	"strings"
	"testing"
)

// TestLongNameQuotedWithoutCutCharacter: a space name or ObjectId of
// more than 80 bytes is quoted cut at 80 bytes in its error, and the cut
// fell inside a character: "aaa…\xc3…", an invalid byte the caller never
// wrote, beside the message saying the character is 'é'. The cut is made
// before the character.
func TestLongNameQuotedWithoutCutCharacter(t *testing.T) {
	for _, err := range []error{
		ValidateSpaceName(strings.Repeat("a", 79) + "é"),
		ValidateID(IDPrefix + strings.Repeat("a", 72) + "éé"),
	} {
		if err == nil {
			t.Fatal("accepted")
		}
		if msg := err.Error(); strings.Contains(msg, `\x`) || !strings.Contains(msg, strings.Repeat("a", 72)+`…"`) {
			t.Errorf("error %q: want the name quoted cut before the 'é', without an invalid byte", msg)
		}
	}
}
