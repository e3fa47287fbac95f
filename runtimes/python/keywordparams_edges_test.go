package python_test

import (
	"errors"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestKeywordParamsSchemaTakesObjects: parameters written as a whole
// schema of keywords without a type ({"anyOf": [{"required": ["x"]},
// {"required": ["y"]}]}, used as given) took any value, as required
// applies to objects only: a caller's "hello" or [1, 2] reached the
// handler as its params. Such a parameters schema is given "type":
// "object", as a whole schema without a type is; a returns schema of
// keywords stays as given.
func TestKeywordParamsSchemaTakesObjects(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	p := loadTool(t, h, "kwparams.py", "from aios_sdk import tool\n\n"+
		"@tool(parameters={\"anyOf\": [{\"required\": [\"x\"]}, {\"required\": [\"y\"]}]}, returns={\"enum\": [\"a\"]})\n"+
		"def kw(params):\n    return \"a\"\n")
	tl := p.Describe().Tools[0]
	if tl.Parameters["type"] != "object" {
		t.Errorf("parameters %v have no type object", tl.Parameters)
	}
	if _, typed := tl.Returns["type"]; typed {
		t.Errorf("returns %v given a type", tl.Returns)
	}
	for _, params := range []any{"hello", []any{int64(1), int64(2)}} {
		_, err := call(h, "kw", params, time.Minute)
		var te *abi.ToolError
		if !errors.As(err, &te) || te.Code != abi.InvalidParams {
			t.Errorf("params %v: %v, want InvalidParams", params, err)
		}
	}
	if _, err := call(h, "kw", map[string]any{"x": int64(1)}, time.Minute); err != nil {
		t.Errorf("params {x: 1}: %v", err)
	}
}
