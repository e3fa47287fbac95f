package discovery

import (
	"strings"
	"testing"
)

// TestParseCardBOMSaysSo: an Adapter Card saved with a UTF-8 byte order
// mark (a Windows editor's habit) was refused as `not a JSON object:
// invalid character 'ï' looking for beginning of value`, which does not say
// what to remove; `run` and `verify` said so of a card that was otherwise
// fine. The refusal names the file and the byte order mark now.
func TestParseCardBOMSaysSo(t *testing.T) {
	card := "\xef\xbb\xbf" + `{"adapter": {"id": "org.example.a", "name": "A", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "endpoints": {"rpc": "unix:///run/a.sock"}}`
	_, err := ParseCard([]byte(card), "plugins/a/adapter.json")
	if err == nil || !strings.Contains(err.Error(), "plugins/a/adapter.json") || !strings.Contains(err.Error(), "byte order mark") {
		t.Fatalf("err = %v, want one naming the file and the byte order mark", err)
	}
}
