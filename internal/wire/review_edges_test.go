package wire

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzArrayLen: ArrayLen is a hand-written scanner that refuses batches
// by their length before they are decoded (server/rpc.go, the MCP HTTP
// and stdio transports), so it must count a valid JSON array's members
// exactly as decoding it does, whatever its strings and nesting hold, and
// never panic on any input (no defect found: it had no fuzz test).
func FuzzArrayLen(f *testing.F) {
	for _, s := range []string{`[]`, ` [ ] `, `[1]`, `[[1,2],{"a":[3,4]},"5,6"]`, `["\"", "\\", "\\\"]"]`,
		`[{"a":"}],["},{}]`, "[\n1 ,\t2\r\n]", `["\u005d,\u005b"]`, `[[[]],[],[[],[]]]`, `["a\\",1]`, `[`, `]`, `"[,]"`, `[,]`, `[1,`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n := ArrayLen(b) // any input: no panic
		var items []json.RawMessage
		if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '[' || json.Unmarshal(b, &items) != nil {
			return // (its callers pass only arrays: null decodes to no items too)
		}
		if n != len(items) {
			t.Fatalf("ArrayLen(%q) = %d, want %d", b, n, len(items))
		}
	})
}
