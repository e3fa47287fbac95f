package wasm

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// A ToolRegister member the host does not know, or one spelled in another
// case, is refused at load naming its path and the member meant: it was
// dropped without a word (MessagePack), or taken for the field only in
// JSON, so a tool meant to require a capability was served without it.
func TestRegisterMembersExact(t *testing.T) {
	for _, tc := range []struct{ reg, want string }{
		{`{"format":1,"provider":{"id":"org.x.y"},"tools":[{"name":"t","capabilities_required":["ReadSpace(s)"]}]}`,
			`ToolRegister.tools[0]: unknown member "capabilities_required"; did you mean "capability_required"?`},
		{`{"format":1,"provider":{"id":"org.x.y"},"tools":[{"name":"t","Capability_Required":["ReadSpace(s)"]}]}`,
			`ToolRegister.tools[0]: unknown member "Capability_Required"; did you mean "capability_required"?`},
		{`{"format":1,"provider":{"id":"org.x.y","capabilites":["CallTool(*)"]},"tools":[{"name":"t"}]}`,
			`ToolRegister.provider: unknown member "capabilites"; did you mean "capabilities"?`},
		{`{"format":1,"provider":{"id":"org.x.y"},"tools":[{"name":"t","deprecation":{"since":"1","replacment":"u"}}]}`,
			`ToolRegister.tools[0].deprecation: unknown member "replacment"; did you mean "replacement"?`},
		{`{"format":1,"provider":{"id":"org.x.y"},"tools":[{"name":"t"}],"zzzzzzzzzzzzzz":1}`,
			`ToolRegister: unknown member "zzzzzzzzzzzzzz" (member names are exact)`},
	} {
		for _, codec := range []abi.Codec{abi.JSON, abi.MsgPack} {
			data := []byte(tc.reg)
			if codec == abi.MsgPack {
				var v any
				if err := abi.UnmarshalJSONValue(data, &v); err != nil {
					t.Fatal(err)
				}
				var err error
				if data, err = abi.MsgPack.Marshal(v); err != nil {
					t.Fatal(err)
				}
			}
			err := checkRegisterMembers(data, codec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %s: %v, want %s", codec.Name(), tc.reg, err, tc.want)
			}
		}
	}
	// Schemas are maps: their members are free.
	ok := `{"format":1,"provider":{"id":"org.x.y","capabilities":["CallTool(*)"]},"tools":[{"name":"t","parameters":{"type":"object","properties":{"Anything":{}},"x-extra":1},"deprecation":{"since":"1"}}]}`
	if err := checkRegisterMembers([]byte(ok), abi.JSON); err != nil {
		t.Errorf("a register with every member known: %v", err)
	}
	// End to end, on each engine: the load fails naming the file's member.
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(`{"format":1,"provider":{"id":"org.probe.abi"},"tools":[{"name":"t","permision_level":"critical"}]}`)
			g.call = "(i64.const 0)"
			_, err := e.load(t, Config{}, abi.Source{Path: buildWAT(t, g.wat())})
			if err == nil || !strings.Contains(err.Error(), `aios_register: ToolRegister.tools[0]: unknown member "permision_level"; did you mean "permission_level"?`) {
				t.Fatalf("load: %v", err)
			}
		})
	}
}
