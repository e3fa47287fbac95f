package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestDefinitionBigIntNamesPath: a schema bound beyond 64 bits in a
// tool's @tool arguments ({"maximum": 2**70}, valid JSON) failed the
// load "tool 'big': its definition (the @tool arguments) is not JSON:
// Integer value out of range" (the packer's words), naming neither the
// value nor where it is. It names the integer, its path in the
// definition and the range the host reads, in both wire formats.
func TestDefinitionBigIntNamesPath(t *testing.T) {
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			h := newHost(t, newRuntime(t, func(c *python.Config) { c.Wire = wire }))
			_, err := h.LoadFile(context.Background(), writeTool(t, "bigbound.py", `from aios_sdk import tool

@tool(name="big", parameters={"n": {"type": "integer", "maximum": 2**70}})
def big(params):
    return 1
`), host.ProviderMeta{Trust: abi.System})
			if err == nil || !strings.Contains(err.Error(), "bigbound.py:3: tool 'big': its definition (the @tool arguments) is not JSON: ") ||
				!strings.Contains(err.Error(), "the integer 1180591620717411303424 at $.parameters.properties.n.maximum") {
				t.Errorf("load: %v; want the @tool's line, the integer and its path", err)
			}
		})
	}
}
