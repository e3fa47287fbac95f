package trust

import (
	"strings"
	"testing"
)

// TestCardWithBOMSaysSo: a card saved by an editor that starts UTF-8 files
// with a byte order mark (EF BB BF) was refused by sign as `jcs: offset
// 0: unexpected character 'ï'`, which does not say what to remove. The
// refusal names the byte order mark now.
func TestCardWithBOMSaysSo(t *testing.T) {
	_, _, err := SigningPayload([]byte("\xef\xbb\xbf" + `{"adapter": {"id": "org.example.a"}}`))
	if err == nil || !strings.Contains(err.Error(), "byte order mark") {
		t.Fatalf("err = %v, want one naming the byte order mark", err)
	}
}
