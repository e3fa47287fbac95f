package aios

import (
	"reflect"
	"testing"

	"github.com/aios-host/aios-host/guest/go/wire"
)

// TestToolWithoutParametersTakesObjects: a tool registered without
// Parameters (aios.Tool{Name: "list"}) went to the host with no parameters
// schema, which accepts any params: a caller's "x" or [1, 2] reached the
// handler (a HandleFunc's "params do not fit", a Handle's string), where
// the same tool from the JS and Python SDKs (and native.JSONSchema(nil))
// has {"type": "object"}, and the host refuses such params naming the
// tool. The Go guest SDK, which follows their rule for schemas, gives
// {"type": "object"} too; Returns stays absent when not given.
func TestToolWithoutParametersTakesObjects(t *testing.T) {
	probeTool(t, "probe-noparams", func() {
		Handle(Tool{Name: "probe-noparams"}, func(c *Call, p any) (any, error) { return p, nil })
	})
	msg := registerMessage()
	v, err := wire.DecodeValue(msg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range v.(map[string]any)["tools"].([]any) {
		m := tl.(map[string]any)
		if m["name"] != "probe-noparams" {
			continue
		}
		if want := map[string]any{"type": "object"}; !reflect.DeepEqual(m["parameters"], want) {
			t.Errorf("parameters %#v, want %#v as the JS and Python SDKs give", m["parameters"], want)
		}
		if _, ok := m["returns"]; ok {
			t.Errorf("returns %#v, want none", m["returns"])
		}
		return
	}
	t.Fatal("probe-noparams is not in the ToolRegister")
}
