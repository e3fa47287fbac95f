package wire

import (
	"encoding/json"
	"testing"
)

// ArrayLen counts a batch's members as decoding it would, whatever its
// strings hold (escaped quotes and backslashes, commas, brackets).
func TestArrayLen(t *testing.T) {
	for _, b := range []string{`[]`, ` [ ] `, `[1]`, `[ {} ]`, `[1,2,3]`, `[[1,2],{"a":[3,4]},"5,6"]`,
		`["\"", "\\", "\\\"]", "a\\\\"]`, `[{"a":"}],["},{}]`, "[\n1 ,\t2\r\n]", `[null,true,false,-1.5e3,"\u005d"]`} {
		var items []json.RawMessage
		if err := json.Unmarshal([]byte(b), &items); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if got := ArrayLen([]byte(b)); got != len(items) {
			t.Errorf("ArrayLen(%s) = %d, want %d", b, got, len(items))
		}
	}
}
