package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// A permission_level or latency_class outside the ABI's words
// (@tool(permission_level="admin"), latency_class="quick") failed the load
// with the registry's "lv.py: provider local.lv, tool t: unknown
// permission level \"admin\" …", naming the file alone, where an option of
// the wrong type names the line of its @tool
// (TestOptionTypesCheckedWhereDeclared). The SDK checks them there.
func TestLevelOptionsCheckedWhereDeclared(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, want string }{
		{"plevel.py", "from aios_sdk import tool\n\n\n@tool(permission_level=\"admin\")\ndef t1(params):\n    return 1\n",
			"plevel.py:4: ValueError while loading: @tool t1: permission_level 'admin' is not one of public, low, medium, high, critical"},
		{"lclass.py", "from aios_sdk import tool\n\n@tool(latency_class=\"quick\")\ndef t2(params):\n    return 1\n",
			"lclass.py:3: ValueError while loading: @tool t2: latency_class 'quick' is not one of fast, normal, slow"},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant it to contain %q", tc.name, err, tc.want)
		}
	}
	if _, err := h.LoadFile(context.Background(), writeTool(t, "oklevels.py", "from aios_sdk import tool\n\n@tool(permission_level=\"high\", latency_class=\"slow\")\ndef t3(params):\n    return 1\n"), host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatalf("permission_level high, latency_class slow: %v", err)
	}
}
