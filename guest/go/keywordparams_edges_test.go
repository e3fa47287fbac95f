package aios

import (
	"testing"
)

// TestKeywordParamsSchemaTakesObjects: Parameters written as a whole
// schema of keywords without a type ({"anyOf": [{"required": ["x"]},
// {"required": ["y"]}]}, sent as given) took any value, as required
// applies to objects only, and a caller's "hello" reached the handler as
// its params; it is sent with "type": "object", as a whole schema
// without a type is. Returns of keywords stays as given.
func TestKeywordParamsSchemaTakesObjects(t *testing.T) {
	probeTool(t, "probe-kwparams", func() {
		Handle(Tool{Name: "probe-kwparams", Parameters: Schema(`{"anyOf":[{"required":["x"]},{"required":["y"]}]}`), Returns: Schema(`{"enum":["a"]}`)},
			func(c *Call, p any) (any, error) { return "a", nil })
	})
	for _, tl := range reg.tools {
		if tl.Name != "probe-kwparams" {
			continue
		}
		if tl.Parameters["type"] != "object" {
			t.Errorf("parameters %v have no type object", tl.Parameters)
		}
		if _, typed := tl.Returns["type"]; typed {
			t.Errorf("returns %v given a type", tl.Returns)
		}
		return
	}
	t.Fatal("probe-kwparams is not registered")
}
