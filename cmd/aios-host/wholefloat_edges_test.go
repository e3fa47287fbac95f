package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallPrintsBigWholeFloatAsFloat: `call` printed a tool's float 2^60
// (Python's 2.0**60, a result that came through a chain of tools) as the
// integer literal 1152921504606847000, which a reader that takes integers
// exactly (Python's json, jq 1.7, this host's own `call -`) reads as
// another number than 2^60: the host writes such floats in exponent form
// everywhere else (abi.ForJSON). Now `call` does too, for the result and
// for an error's data, with and without --json.
func TestCallPrintsBigWholeFloatAsFloat(t *testing.T) {
	e := newEnv(t)
	src := `from aios_sdk import Agent, tool, ToolError

@Agent(name="Floats")
class Floats:
    @tool(name="whole", parameters={})
    def whole(self, params, ctx):
        return {"w": 2.0 ** 60, "n": 2 ** 60}

    @tool(name="whole-fail", parameters={})
    def whole_fail(self, params, ctx):
        raise ToolError("NotFound", "no", {"w": 2.0 ** 60})
`
	if err := os.WriteFile(filepath.Join(e.plugins, "floats.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"call", "whole", "{}", "--json"}, {"call", "whole", "{}"}, {"call", "whole-fail", "{}", "--json"}} {
		_, out, errs := e.run("", args...)
		if !strings.Contains(out, "1.152921504606847e+18") || strings.Contains(out, "1152921504606847000") {
			t.Errorf("%q: stdout %q (stderr %q): the float 2^60 is not written as a float", args, out, errs)
		}
		if args[1] == "whole" && !strings.Contains(out, "1152921504606846976") {
			t.Errorf("%q: stdout %q: the integer 2^60 is not written exactly", args, out)
		}
	}
}
