package python_test

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestBoolOptionsTakeBools: @tool's yes-or-no options were taken by their
// truth, so mcp_exportable="false" (as a YAML or environment value is
// written) exported the tool to MCP clients, idempotent="no" marked it
// safe to retry and deprecated="false" deprecated it, all without a word
// (a JS tool's string went to the host, which refused it). A value that is
// not a bool now fails the load at the @tool's line naming the option;
// True and False (and leaving it out) still load.
func TestBoolOptionsTakeBools(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct {
		name, src string
		contains  []string
	}{
		{"mcp_str.py", "from aios_sdk import tool\n\n@tool(name='a', mcp_exportable='false')\ndef a(p): return {}\n",
			[]string{"mcp_str.py:3", "@tool a: mcp_exportable must be True or False, got str 'false'"}},
		{"idem_str.py", "from aios_sdk import tool\n@tool(name='b', idempotent='no')\ndef b(p): return {}\n",
			[]string{"idem_str.py:2", "@tool b: idempotent must be True or False, got str 'no'"}},
		{"depr_int.py", "from aios_sdk import tool\n@tool(name='c', deprecated=2)\ndef c(p): return {}\n",
			[]string{"depr_int.py:2", "@tool c: deprecated must be True or False, got int 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
			checkLoadErr(t, err, tc.contains)
		})
	}
	p := loadTool(t, h, "bools_fine.py", "from aios_sdk import tool\n"+
		"@tool(name='yes', mcp_exportable=True, idempotent=True, deprecated=True)\ndef y(p): return {}\n"+
		"@tool(name='no', mcp_exportable=False, idempotent=False, deprecated=False)\ndef n(p): return {}\n")
	for _, d := range p.Describe().Tools {
		want := d.Name == "yes"
		if d.MCPExportable != want || d.Idempotent != want || d.Deprecated != want {
			t.Errorf("%s: mcp_exportable %v, idempotent %v, deprecated %v; want all %v", d.Name, d.MCPExportable, d.Idempotent, d.Deprecated, want)
		}
	}
}
