package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestCapabilityErrorNamesLine: a capability string the host cannot
// parse, in @Agent(capabilities=...), provider(capabilities=...) or a
// tool's capability_required, failed the load naming the file alone,
// while the SDK's own load errors name the line; now the line of the
// declaration is named too, in both wire formats.
func TestCapabilityErrorNamesLine(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"agent", `from aios_sdk import Agent, tool

@Agent(id="org.t.caps",
       capabilities=["ReadSpace()"])
class A:
    @tool(name="t")
    def t(self, p):
        return 1
`, "caps.py:3: @Agent(capabilities=...) or provider(capabilities=...): capability \"ReadSpace()\""},
		{"provider", `from aios_sdk import provider, tool

x = 1
provider(id="org.t.caps", capabilities=["Netwrk(x)"])

@tool(name="t")
def t(p):
    return 1
`, "caps.py:4: @Agent(capabilities=...) or provider(capabilities=...): capability \"Netwrk(x)\""},
		{"tool", `from aios_sdk import Agent, tool

@Agent(id="org.t.caps")
class A:
    @tool(name="t")
    def t(self, p):
        return 1

    @tool(name="u", capability_required="Bad(")
    def u(self, p):
        return 1
`, "caps.py:9: tool u capability_required: capability \"Bad(\""},
		{"id", `from aios_sdk import Agent, tool

x = 1
@Agent(id="Org T Caps")
class A:
    @tool(name="t")
    def t(self, p):
        return 1
`, "caps.py:4: @Agent(id=...) or provider(id=...): "},
	} {
		for _, wire := range []string{"msgpack", "json"} {
			t.Run(c.name+"/"+wire, func(t *testing.T) {
				rt := newRuntime(t, nil)
				if wire == "json" {
					python.OfferJSONOnly(rt)
				}
				_, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "caps.py", c.src)})
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("load error %v, want it to contain %q", err, c.want)
				}
			})
		}
	}
}
