package abi

import (
	"strings"
	"testing"
)

// TestNearKindSparesWords: ParseCapability (since today everywhere:
// a provider's request and a tool's capability_required too, not only a
// config grant) refused every kind within two edits of a built-in one,
// and two letters replaced make another word: ReadState(session),
// WriteState, ReadPage, CallHook, MailTool, Artwork, Reference were
// refused as typos ("did you mean ReadSpace?") and a plugin asking for
// them no longer loaded. A typo is now one slip (a letter wrong, missing,
// extra, or two swapped) or two letters missing or extra.
func TestNearKindSparesWords(t *testing.T) {
	for _, s := range []string{"ReadState(session)", "WriteState(session)", "ReadPage(x)", "ReadPlace",
		"CallHook(x)", "MailTool", "Artwork", "Reference", "Conference(room-a)", "Influence"} {
		if _, err := ParseCapability(s); err != nil {
			t.Errorf("ParseCapability(%q): %v", s, err)
		}
	}
	for s, want := range map[string]string{
		"Netwrok(h)":       "did you mean Network?", // two letters swapped
		"Netwk(h)":         "did you mean Network?", // two letters missing
		"ReadSpce(docs)":   "did you mean ReadSpace?",
		"WriteSpaces(d)":   "did you mean WriteSpace?",
		"Inferense":        "did you mean Inference?",
		"CalTool(x)":       "did you mean CallTool?",
		"ReadSpacee(docs)": "did you mean ReadSpace?",
	} {
		if _, err := ParseCapability(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCapability(%q) = %v, want an error with %q", s, err, want)
		}
	}
}
