package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzStdioLines feeds arbitrary client bytes to the stdio line filter:
// it never panics, passes on only JSON lines, and answers every other
// non-blank line with exactly one JSON-RPC error.
func FuzzStdioLines(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		"garbage\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n",
		"[]\n[1,2]\n\n   \n",
		`{"jsonrpc":"2.0","id":{"a":1},"method":"m"}`,
		"\xff\xfe\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		j := &jsonLines{r: bufio.NewReaderSize(bytes.NewReader(data), 64<<10), w: &lockedWriter{w: &out}}
		passed, err := io.ReadAll(j)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(passed), "\n"), "\n") {
			if l != "" && !json.Valid([]byte(l)) {
				t.Fatalf("passed a non-JSON line %q", l)
			}
		}
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			var m struct {
				Error *struct{ Code int64 } `json:"error"`
			}
			if l != "" && (json.Unmarshal([]byte(l), &m) != nil || m.Error == nil) {
				t.Fatalf("answer %q is not a JSON-RPC error", l)
			}
		}
	})
}
