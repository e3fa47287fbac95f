package wit

import (
	"strings"
	"testing"
)

// TestDecodeRefusesNamesWITCannotRead: a binary WIT package exporting an
// interface whose ID is not WIT's (a namespace "0", a package "-") decoded
// without a word to text that does not parse (`package 0:0;`, what
// FuzzDecode found). The ID is refused naming it.
func TestDecodeRefusesNamesWITCannotRead(t *testing.T) {
	// (component (type (component (type (instance)) (export "0:0/e" (instance (type 0))))) (export "e" (type 0)))
	good := []byte("\x00asm\r\x00\x01\x00\a\x10\x01A\x02\x01B\x00\x04\x01\x05a:b/e\x05\x00\v\a\x01\x00\x01e\x03\x00\x00")
	if _, err := DecodeBinary("ok.wasm", good, Options{}); err != nil {
		t.Fatalf("a:b/e: %v", err)
	}
	for _, id := range []string{"0:0/e", "a:-/e", "a:1/e"} {
		b := []byte(strings.Replace(string(good), "a:b/e", id, 1))
		_, err := DecodeBinary("bad.wasm", b, Options{})
		if err == nil || !strings.Contains(err.Error(), `"`+id+`" is not an interface or world name`) {
			t.Errorf("%s: %v", id, err)
		}
	}
}
