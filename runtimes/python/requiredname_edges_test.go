package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// @tool(parameters={"query": {...}}, required=["qeury"]) loaded: the
// schema required a property that was not among its parameters, so every
// call, with or without query, was refused "missing property qeury", a name
// the tool's schema declares nowhere else. In the shorthand, which lists
// every property, a required name outside it fails the load at the
// @tool's line naming it and the parameters.
func TestRequiredNameNotAParameterRefused(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	_, err := h.LoadFile(context.Background(), writeTool(t, "reqname.py", "from aios_sdk import tool\n\n@tool(parameters={'query': {'type': 'string'}, 'limit': {'type': 'integer'}}, required=['qeury'])\ndef search(params):\n    return 1\n"), host.ProviderMeta{Trust: abi.System})
	want := "reqname.py:3: ValueError while loading: @tool search: required names 'qeury', which is not one of its parameters (limit, query)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%v\nwant it to contain %q", err, want)
	}
	// A whole schema is used as given (its required may name properties
	// that patternProperties or additionalProperties allow).
	if _, err := h.LoadFile(context.Background(), writeTool(t, "reqwhole.py", "from aios_sdk import tool\n\n@tool(parameters={'type': 'object', 'additionalProperties': {'type': 'string'}}, required=['x'])\ndef whole(params):\n    return 1\n"), host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatalf("a whole schema with required=['x']: %v", err)
	}
}
