package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestCapabilityNotCalledSaysCallIt: Capability.ReadSpace written without
// its argument (`capabilities=[Capability.ReadSpace]`, as one writes
// Capability.Inference) failed the load with "want capability strings,
// got <function Capability.ReadSpace at 0x7f…>", which did not say what to
// write. The error now says to call it with its argument, in @Agent and in
// @tool's capability_required.
func TestCapabilityNotCalledSaysCallIt(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, want string }{
		{"agentcap.py", "from aios_sdk import Agent, tool, Capability\n\n@Agent(name='A', capabilities=[Capability.ReadSpace])\nclass A:\n    @tool(name='a', parameters={})\n    def a(self, params):\n        return {}\n",
			`Capability.ReadSpace("space")`},
		{"toolcap.py", "from aios_sdk import Agent, tool, Capability\n\n@Agent(name='B')\nclass B:\n    @tool(name='b', parameters={}, capability_required=Capability.Network)\n    def b(self, params):\n        return {}\n",
			`Capability.Network("host_pattern")`},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "0x") {
			t.Errorf("%s: %v; want a load error saying to write %s", tc.name, err, tc.want)
		}
	}
}
