package main

import (
	"strings"
	"testing"
)

// TestCallParamsNotUnicodeRefused: params holding an invalid UTF-8 byte
// or an escaped lone surrogate ("\ud800") were read by encoding/json as
// U+FFFD and the tool was called with that character instead: `call stats
// '{"c":"\ud800"}'` on a component taking a char gave the component
// U+FFFD, and two member names became one, where a running host's socket
// and a component's JSON text refuse such text. Now the params are
// refused before anything is called, exit 2, naming where they came
// from, the offset and what is wrong.
func TestCallParamsNotUnicodeRefused(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ stdin, arg, want string }{
		{"", `{"path":"\ud800"}`, `\ud800 at offset 9`},
		{"", `{"path":"a\udc00"}`, `\udc00 at offset 10`},
		{"{\"path\":\"\xff\"}", "-", "byte 0xff at offset 9"},
	} {
		code, out, errs := e.run(tc.stdin, "call", "analyze-complexity", tc.arg, "--json")
		if code != exitUsage || out != "" || !strings.Contains(errs, "params") || !strings.Contains(errs, tc.want) {
			t.Errorf("call %q (stdin %q): exit %d, stdout %q, stderr %q; want exit 2 naming the params and %q", tc.arg, tc.stdin, code, out, errs, tc.want)
		}
	}
}
