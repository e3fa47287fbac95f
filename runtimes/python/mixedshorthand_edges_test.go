package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestShorthandMixedWithKeywordRefused: parameters= in the shorthand (a
// dict of property schemas) with a schema keyword beside them, {"query":
// {...}, "limit": {...}, "required": ["query"]}, was taken as a whole
// schema because of the keyword: the tool loaded with no properties at
// all (query and limit unknown keywords, limit's type never checked, an
// MCP client shown no parameters). The load fails at the @tool's line
// naming the parameters and the keyword and how to write either form.
func TestShorthandMixedWithKeywordRefused(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, want string }{
		{"mixreq.py", "from aios_sdk import tool\n\n@tool(parameters={\"query\": {\"type\": \"string\"}, \"limit\": {\"type\": \"integer\"}, \"required\": [\"query\"]})\ndef search(params):\n    return params\n",
			`mixreq.py:3: ValueError while loading: @tool search: parameters mixes property schemas (limit, query) with the schema keyword "required"`},
		{"mixdesc.py", "from aios_sdk import tool\n\n@tool(parameters={\"query\": {\"type\": \"string\"}, \"description\": \"search arguments\"})\ndef lookup(params):\n    return params\n",
			`mixdesc.py:3: ValueError while loading: @tool lookup: parameters mixes property schemas (query) with the schema keyword "description"`},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %q", tc.name, err, tc.want)
		}
	}
	// A whole schema without "type" whose other members are keywords
	// ($defs holds schemas) is still used as given.
	p := loadTool(t, h, "refdefs.py", "from aios_sdk import tool\n\n@tool(parameters={\"$ref\": \"#/$defs/p\", \"$defs\": {\"p\": {\"type\": \"object\"}}, \"description\": \"d\"})\ndef ref(params):\n    return params\n")
	if got := p.Describe().Tools[0].Parameters; got["$ref"] != "#/$defs/p" || got["description"] != "d" {
		t.Errorf("the $ref schema was not used as given: %v", got)
	}
}
