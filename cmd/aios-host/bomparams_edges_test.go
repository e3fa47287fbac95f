package main

import (
	"strings"
	"testing"
)

// TestCallStdinParamsBOMIgnored: params piped from a file saved with a
// UTF-8 byte order mark (Notepad, PowerShell's pipe to a native command)
// failed, exit 2, "params from standard input are not valid JSON: invalid
// character 'ï' looking for beginning of value", naming a character the
// file does not show. RFC 8259 §8.1 lets a reader ignore the mark, as
// `aios-host mcp` does on its standard input (TestStdioBOM): the call is
// made with the params after it.
func TestCallStdinParamsBOMIgnored(t *testing.T) {
	e := newEnv(t)
	id := e.putSource()
	params := `{"object_id":"` + id + `","language":"go"}`
	code, out, errs := e.run("\ufeff"+params+"\n", "call", "analyze-complexity", "-", "--json")
	if code != exitOK || !strings.Contains(out, `"complexity":4`) {
		t.Errorf("params with a byte order mark from stdin: %d %q %q", code, out, errs)
	}
	// A mark alone is still empty params, said so.
	code, _, errs = e.run("\ufeff\n", "call", "analyze-complexity", "-")
	if code != exitUsage || !strings.Contains(errs, "params from standard input are empty") {
		t.Errorf("a byte order mark alone: %d %q", code, errs)
	}
}
