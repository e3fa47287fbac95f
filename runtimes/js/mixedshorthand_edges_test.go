package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestShorthandMixedWithKeywordRefused: parameters in the shorthand (a
// map of property schemas) with a schema keyword beside them, {query:
// {...}, limit: {...}, required: ['query']}, was taken as a whole schema
// because of the keyword: the tool loaded with no properties at all
// (query and limit unknown keywords), so a call with {query: 5, limit:
// 'many'}, or the string "hello" as its params, reached the handler.
// The load fails at the definition's line naming the parameters and the
// keyword, as the Python SDK's does.
func TestShorthandMixedWithKeywordRefused(t *testing.T) {
	rt := newRuntime(t, Options{})
	for _, c := range []struct{ name, src, want string }{
		{"mixreq.js", "aios.provider({ id: 'org.probe.mix' });\naios.registerTool({ name: 'search', parameters: { query: { type: 'string' }, limit: { type: 'integer' }, required: ['query'] } }, (p) => p);\n",
			`search: parameters mixes property schemas (limit, query) with the schema keyword "required"`},
		{"mixdesc.js", "aios.provider({ id: 'org.probe.mix' });\naios.registerTool({ name: 'lookup', parameters: { query: { type: 'string' }, description: 'search arguments' } }, (p) => p);\n",
			`lookup: parameters mixes property schemas (query) with the schema keyword "description"`},
		{"mixret.js", "aios.provider({ id: 'org.probe.mix' });\naios.registerTool({ name: 'r', returns: { total: { type: 'integer' }, required: ['total'] } }, (p) => p);\n",
			`r: returns mixes property schemas (total) with the schema keyword "required"`},
	} {
		path := writeSource(t, c.name, c.src)
		_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name+":2") {
			t.Errorf("%s: %v\nwant %q at line 2", c.name, err, c.want)
		}
	}
	// A whole schema without "type" whose other members are keywords
	// ($defs holds schemas) is still used as given.
	p := loadSource(t, rt, "refdefs.js", "aios.provider({ id: 'org.probe.ref' });\naios.registerTool({ name: 'ref', parameters: { $ref: '#/$defs/p', $defs: { p: { type: 'object' } }, description: 'd' } }, (p) => p);\n")
	if got := p.Describe().Tools[0].Parameters; got["$ref"] != "#/$defs/p" || got["description"] != "d" {
		t.Errorf("the $ref schema was not used as given: %v", got)
	}
}
