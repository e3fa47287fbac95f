package wasm

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestRegisterToolWithoutNameNamesIndex: a ToolRegister whose tools list
// held a tool without a name, or a null, failed the load with `invalid
// tool name "": use 1-128 characters …`, which did not say which of the
// guest's tools it was, nor that the entry had no name at all (or was
// null). The error names the entry by its index and says what it lacks;
// a bad name is named with its index too. Both engines.
func TestRegisterToolWithoutNameNamesIndex(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			for _, c := range []struct{ tools, want string }{
				{`[{"name":"a"},{"description":"b"}]`, `tools[1] has no "name"`},
				{`[{"name":"a"},{"name":"b"},null]`, `tools[2] is null`},
				{`[{"name":"a"},{"name":"-b"}]`, `tools[1]: invalid tool name "-b"`},
			} {
				g := newEdgeGuest(`{"format":1,"provider":{"id":"org.probe.names"},"tools":` + c.tools + `}`)
				g.call = "(i64.const 0)"
				p, err := e.load(t, Config{PoolSize: 1}, abi.Source{Path: buildWAT(t, g.wat())})
				if err == nil {
					p.Close()
				}
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("tools %s: load error %v; want one saying %q", c.tools, err, c.want)
				}
			}
		})
	}
}
