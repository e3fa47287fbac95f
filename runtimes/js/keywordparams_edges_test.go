package js

import (
	"testing"
)

// TestKeywordParamsSchemaTakesObjects: parameters written as a whole
// schema of keywords without a type ({anyOf: [{required: ['x']},
// {required: ['y']}]}, or a $ref to a definition without one, used as
// given) took any value, as required applies to objects only: a
// caller's "hello" reached the handler as its params. Such a parameters
// schema is given type "object", as a whole schema without a type is; a
// returns schema of keywords stays as given.
func TestKeywordParamsSchemaTakesObjects(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "kwparams.js", `
aios.provider({ id: 'org.probe.kwparams' });
aios.registerTool({ name: 'any', parameters: { anyOf: [{ required: ['x'] }, { required: ['y'] }] }, returns: { enum: ['a'] } }, () => 'a');
aios.registerTool({ name: 'ref', parameters: { $ref: '#/$defs/p', $defs: { p: { required: ['x'] } } } }, (p) => p);
`)
	seen := 0
	for _, tl := range p.Describe().Tools {
		seen++
		if tl.Parameters["type"] != "object" {
			t.Errorf("%s: parameters %v have no type object", tl.Name, tl.Parameters)
		}
		if _, typed := tl.Returns["type"]; typed {
			t.Errorf("%s: returns %v given a type", tl.Name, tl.Returns)
		}
	}
	if seen != 2 {
		t.Fatalf("%d of 2 tools registered", seen)
	}
}
