package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// A version that is not strict SemVer (@tool(version="2.0"),
// @Agent(version="v1"), provider(version="abc")) failed the load with the
// registry's "ver.py: provider local.ver, tool t: version \"2.0\" is not a
// strict SemVer version …", naming the file alone, where every other
// option of the wrong form names the line that declares it
// (TestToolNameCheckedWhereDeclared, TestOptionTypesCheckedWhereDeclared).
// The SDK checks it where it is declared: "ver.py:3: ValueError while
// loading: @tool t: version '2.0' is not …".
func TestVersionCheckedWhereDeclared(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, want string }{
		{"tver.py", "from aios_sdk import tool\n\n@tool(version=\"2.0\")\ndef t1(params):\n    return 1\n", "tver.py:3: ValueError while loading: @tool t1: version '2.0' is not a strict SemVer version"},
		{"aver.py", "from aios_sdk import Agent, tool\n\n@Agent(version=\"v1.2.3\")\nclass A:\n    @tool\n    def t2(self, params):\n        return 1\n", "aver.py:3: ValueError while loading: @Agent: version 'v1.2.3' is not a strict SemVer version"},
		{"pver.py", "from aios_sdk import provider, tool\n\nprovider(version=\"abc\")\n\n@tool\ndef t3(params):\n    return 1\n", "pver.py:3: ValueError while loading: provider: version 'abc' is not a strict SemVer version"},
		// An empty or malformed pre-release or build passed the SDK, to be
		// refused by the registry naming the file alone.
		{"prever.py", "from aios_sdk import tool\n\n@tool(version=\"1.0.0-01\")\ndef t5(params):\n    return 1\n", "prever.py:3: ValueError while loading: @tool t5: version '1.0.0-01' is not a strict SemVer version"},
		{"emptypre.py", "from aios_sdk import provider, tool\n\nprovider(version=\"1.0.0-\")\n\n@tool\ndef t6(params):\n    return 1\n", "emptypre.py:3: ValueError while loading: provider: version '1.0.0-' is not a strict SemVer version"},
		{"build.py", "from aios_sdk import tool\n\n@tool(version=\"1.0.0+a..b\")\ndef t7(params):\n    return 1\n", "build.py:3: ValueError while loading: @tool t7: version '1.0.0+a..b' is not a strict SemVer version"},
		{"newline.py", "from aios_sdk import tool\n\n@tool(version=\"1.0.0\\n\")\ndef t8(params):\n    return 1\n", "newline.py:3: ValueError while loading: @tool t8: version '1.0.0\\n' is not a strict SemVer version"},
	} {
		_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant it to contain %q", tc.name, err, tc.want)
		}
	}
	// What strict SemVer allows still loads.
	if _, err := h.LoadFile(context.Background(), writeTool(t, "okver.py", "from aios_sdk import provider, tool\n\nprovider(version=\"1.0.0-rc.1+build.5\")\n\n@tool(version=\"0.10.2-alpha\")\ndef t4(params):\n    return 1\n"), host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatalf("strict SemVer versions: %v", err)
	}
}
