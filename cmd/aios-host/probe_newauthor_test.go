package main

import (
	"strings"
	"testing"
)

// TestProbeCallParamsQuoting: `call TOOL '{n:1}'` or "{'n':1}" (a
// JavaScript or Python habit) said only "json: invalid character 'n'
// looking for beginning of object key string": neither where nor how to
// write it. It now gives the byte offset and, for an unquoted or
// single-quoted key or string, that JSON takes double quotes.
func TestProbeCallParamsQuoting(t *testing.T) {
	e := newEnv(t)
	for _, arg := range []string{`{n:1}`, `{'n':1}`, `{"n":'x'}`} {
		code, out, errs := e.run("", "call", "analyze-complexity", arg)
		if code != exitUsage || out != "" || !strings.Contains(errs, "at byte ") || !strings.Contains(errs, `double quotes`) {
			t.Errorf("call %q: exit %d, stdout %q, stderr %q; want exit 2, the offset and the quoting hint", arg, code, out, errs)
		}
	}
	// Another syntax error gets the offset, not the quoting hint.
	if code, _, errs := e.run("", "call", "analyze-complexity", `{"n":1,}`); code != exitUsage || !strings.Contains(errs, "at byte ") || strings.Contains(errs, "double quotes") {
		t.Errorf("trailing comma: exit %d, stderr %q", code, errs)
	}
}
