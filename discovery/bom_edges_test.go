package discovery

import (
	"strings"
	"testing"
	"unicode/utf16"
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

// TestParseCardUTF16SaysSo: a card saved as UTF-16 (Notepad's "Unicode",
// PowerShell's Out-File) or UTF-32, with a byte order mark or without,
// was refused as `invalid character 'ÿ' looking for beginning of value`
// (or '\x00'), which does not say the encoding is at fault. The refusal
// names the file and the encoding now, and asks for UTF-8.
func TestParseCardUTF16SaysSo(t *testing.T) {
	card := `{"adapter": {"id": "org.example.a", "name": "浏览器", "version": "1.0.0", "protocol_version": "0.3.0"},` + "\r\n" +
		`  "capabilities": {}, "skills": [], "endpoints": {"rpc": "unix:///run/a.sock"}}`
	if _, err := ParseCard([]byte(card), "plugins/a/adapter.json"); err != nil {
		t.Fatalf("the UTF-8 card (CRLF lines) is refused: %v", err)
	}
	units := utf16.Encode([]rune(card))
	le, be := []byte{}, []byte{}
	for _, u := range units {
		le = append(le, byte(u), byte(u>>8))
		be = append(be, byte(u>>8), byte(u))
	}
	var le32 []byte
	for _, r := range card {
		le32 = append(le32, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"UTF-16LE with BOM", "UTF-16LE", append([]byte{0xff, 0xfe}, le...)},
		{"UTF-16BE with BOM", "UTF-16BE", append([]byte{0xfe, 0xff}, be...)},
		{"UTF-16LE", "UTF-16LE", le},
		{"UTF-16BE", "UTF-16BE", be},
		{"UTF-32LE with BOM", "UTF-32LE", append([]byte{0xff, 0xfe, 0, 0}, le32...)},
		{"UTF-32LE", "UTF-32LE", le32},
	} {
		_, err := ParseCard(tc.data, "plugins/a/adapter.json")
		if err == nil || !strings.Contains(err.Error(), "plugins/a/adapter.json") || !strings.Contains(err.Error(), tc.want) ||
			!strings.Contains(err.Error(), "UTF-8") {
			t.Errorf("%s: err = %v, want one naming the file, %s and UTF-8", tc.name, err, tc.want)
		}
	}
}
