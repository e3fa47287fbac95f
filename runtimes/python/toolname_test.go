package python_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	pysdk "github.com/aios-host/aios-host/sdk/python"
)

// TestToolNameCheckedWhereDeclared: an invalid tool name (given, or made
// from a function name such as _private) is refused by the SDK at the line
// that declares the tool, with the host's rule; it was refused by the
// registry after the load, naming the file alone. The SDK's pattern is the
// host's (abi.ToolNamePattern).
func TestToolNameCheckedWhereDeclared(t *testing.T) {
	core, err := pysdk.Files.ReadFile("aios_sdk/_core.py")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(core), `re.compile(r"`+abi.ToolNamePattern+`")`) {
		t.Fatalf("the Python SDK does not check tool names with abi.ToolNamePattern %s", abi.ToolNamePattern)
	}
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct{ name, src, at string }{
		{"space_name.py", "from aios_sdk import tool\n\n@tool(name='Word Count')\ndef a(p): return {}\n", "space_name.py:3"},
		{"private_fn.py", "from aios_sdk import tool\n@tool\ndef _private(p): return {}\n", "private_fn.py:"},
		{"newline_name.py", "from aios_sdk import tool\n@tool(name='abc\\n')\ndef a(p): return {}\n", "newline_name.py:2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
			checkLoadErr(t, err, []string{tc.at, "invalid tool name", "starting with a letter or digit"})
		})
	}
}
