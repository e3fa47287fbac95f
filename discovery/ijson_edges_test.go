package discovery

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestParseCardIJSON: an unsigned card was read with encoding/json, which
// takes the last of two members of one name and turns bytes that are not
// UTF-8 into U+FFFD. A card naming "id" twice loaded under the second id
// without a word, and `aios-host sign` then refused the same card (it
// wants I-JSON, RFC 7493, as verification does). Every card is now held to
// I-JSON when it is read, signed or not, and the error names the line and
// column.
func TestParseCardIJSON(t *testing.T) {
	data, err := os.ReadFile("known/chrome.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseCard(data, "chrome.json"); err != nil {
		t.Fatalf("the known card: %v", err)
	}
	dup := bytes.Replace(data, []byte(`"license": "MIT"`), []byte(`"license": "MIT", "id": "org.evil.other"`), 1)
	c, err := ParseCard(dup, "chrome.json")
	if err == nil {
		t.Fatalf("a card naming adapter.id twice loaded as %q", c.Adapter.ID)
	}
	for _, want := range []string{"chrome.json", `duplicate member name "id"`, "line 9, column"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	bad := bytes.Replace(data, []byte(`Controls Google Chrome`), []byte("Controls Google \xffChrome"), 1)
	if _, err := ParseCard(bad, "chrome.json"); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") || !strings.Contains(err.Error(), "line 5, column") {
		t.Errorf("a card with a byte that is not UTF-8: %v", err)
	}
}
