package abi

import (
	"strings"
	"testing"
)

// TestJSONWrongTypeNamesIndex: a JSON message whose member had the wrong
// type inside an array was named by encoding/json's field path, which
// leaves out the index: a guest's ToolRegister with "idempotent": "yes" in
// its 12th tool was refused as `member "tools.idempotent" is a JSON
// string`, saying not which tool. The member is named by its path with
// the index, `tools[1].idempotent`, as unknown members are.
func TestJSONWrongTypeNamesIndex(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"format":1,"tools":[{"name":"a"},{"name":"b","idempotent":"yes"}]}`, `member "tools[1].idempotent" is a JSON string`},
		{`{"format":1,"tools":[{"name":"a","tags":["x"]},{"name":"b","tags":["y",{"z":1}]}]}`, `member "tools[1].tags[1]" is a JSON object`},
		{`{"format":1,"provider":{"id":"x","capabilities":"CallTool(*)"}}`, `member "provider.capabilities" is a JSON string`},
	} {
		var reg ToolRegister
		err := JSON.Unmarshal([]byte(c.in), &reg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.in, err, c.want)
		}
	}
}
