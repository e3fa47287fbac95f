package python_test

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestMisspeltOptions: a misspelt @tool/@Agent/provider option fails
// the load naming the closest known one (as the JS SDK does); it was
// Python's bare "tool() got an unexpected keyword argument 'paramaters'".
func TestMisspeltOptions(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct {
		name, src string
		contains  []string
	}{
		{"typo_tool.py", "from aios_sdk import tool\n@tool(name='a', paramaters={'x': {'type': 'string'}})\ndef a(p): return {}\n",
			[]string{"typo_tool.py:2", "unknown option 'paramaters' (did you mean parameters?)"}},
		{"camel_tool.py", "from aios_sdk import tool\n@tool(name='a', capabilityRequired='ReadSpace(x)')\ndef a(p): return {}\n",
			[]string{"camel_tool.py:2", "(did you mean capability_required?)"}},
		{"typo_agent.py", "from aios_sdk import Agent, tool\n@Agent(capabilites=[])\nclass A:\n    @tool(name='a')\n    def a(self, p): return {}\n",
			[]string{"typo_agent.py:2", "@Agent: unknown option 'capabilites' (did you mean capabilities?)"}},
		{"typo_provider.py", "from aios_sdk import provider, tool\nprovider(idd='org.x')\n@tool(name='a')\ndef a(p): return {}\n",
			[]string{"typo_provider.py:2", "provider: unknown option 'idd' (did you mean id?)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
			checkLoadErr(t, err, tc.contains)
		})
	}
}
