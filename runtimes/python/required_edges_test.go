package python_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestRequiredOptionIsAListOfNames: @tool(required="name") made the
// schema's required ["n", "a", "m", "e"] (list() of a str, as tags= did
// before TestOptionTypesCheckedWhereDeclared): it loaded (the host warning
// of undeclared required properties "n", "a", "m", "e") and every call
// failed InvalidParams 'missing required property "n"'; required=[1] went
// to the host. Both now fail the load at the @tool's line naming the
// option; a list or tuple of names still loads, in its order, also for a
// whole schema.
func TestRequiredOptionIsAListOfNames(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct {
		name, src string
		contains  []string
	}{
		{"req_str.py", "from aios_sdk import tool\n\n@tool(name='a', parameters={'name': {'type': 'string'}}, required='name')\ndef a(p): return {}\n",
			[]string{"req_str.py:3", "@tool a: required must be a list of strings, got str 'name'", "required=['name']"}},
		{"req_int.py", "from aios_sdk import tool\n@tool(name='b', parameters={'n': {'type': 'integer'}}, required=[1])\ndef a(p): return {}\n",
			[]string{"req_int.py:2", "@tool b: required must be a list of strings, got int 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
			checkLoadErr(t, err, tc.contains)
		})
	}
	p := loadTool(t, h, "req_fine.py", "from aios_sdk import tool\n"+
		"@tool(name='fine', parameters={'b': {'type': 'string'}, 'a': {'type': 'string'}}, required=('b', 'a'))\ndef a(p): return {}\n"+
		"@tool(name='whole', parameters={'type': 'object', 'properties': {'q': {'type': 'string'}}}, required=['q', 'token'])\ndef w(p): return {}\n")
	want := map[string]string{"fine": "[b a]", "whole": "[q token]"}
	for _, d := range p.Describe().Tools {
		if got := fmt.Sprint(d.Parameters["required"]); got != want[d.Name] {
			t.Errorf("%s: required %s, want %s", d.Name, got, want[d.Name])
		}
	}
	if _, err := call(h, "fine", map[string]any{"a": "x", "b": "y"}, 0); err != nil {
		t.Fatalf("fine with its required parameters: %v", err)
	}
}
