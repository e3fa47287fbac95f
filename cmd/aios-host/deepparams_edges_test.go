package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// Params that are JSON but that the host does not take (nested 100 000
// levels, or 600; a number beyond a float64) were reported by `call` as
// "params from standard input are not valid JSON: …", sending the user to
// look for a syntax error that is not there; the depth past the parser's
// limit was "json: invalid character '[' exceeded max depth". Each now
// says what is wrong, and "not valid JSON" is kept for text that is not.
func TestCallParamsTooDeepNotInvalid(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, "plugins: []\ndata: "+filepath.Join(dir, "d")+"\naudit: {disabled: true}\n")
	for _, tc := range []struct{ in, want string }{
		{`{"a":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`, "nested deeper than 10000 levels"},
		{`{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, "nested deeper than 512 levels"},
		{`{"a":1e400}`, "beyond the range of a 64-bit float"},
	} {
		var out bytes.Buffer
		code, stderr := runWith(t, strings.NewReader(tc.in), &out, "--config", cfg, "call", "nosuch", "-")
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "not valid JSON") || len(stderr) > 2000 {
			t.Errorf("%.12s…: exit %d, %.300q; want exit 2 saying %q, not that it is not valid JSON", tc.in, code, stderr, tc.want)
		}
	}
	var out bytes.Buffer
	if code, stderr := runWith(t, strings.NewReader(`{"a":}`), &out, "--config", cfg, "call", "nosuch", "-"); code != 2 || !strings.Contains(stderr, "params from standard input are not valid JSON") {
		t.Errorf("text that is not JSON: exit %d, %q", code, stderr)
	}
}
