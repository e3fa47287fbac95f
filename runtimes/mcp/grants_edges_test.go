package mcp

import (
	"slices"
	"strings"
	"testing"
)

// TestCapabilityRequiredCoversResourcesAndPrompts: capability_required
// was applied to a server's tools only. With `"*": [ReadSpace(files)]`,
// which an operator writes to gate everything of a server, the read tools
// of its resources and resource templates and the tools of its prompts
// (permission low, so open to agents a high tool is not) required
// nothing: any agent with CallTool(*) read the resources the server's
// tools were gated for. They are matched by their tool's name after
// mcp-{server}- (read-…, prompt-…), so "*" covers them and "read-*"
// covers the resources alone.
func TestCapabilityRequiredCoversResourcesAndPrompts(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{{"templates", "mcp-f-read-"}, {"prompts", "mcp-f-prompt-"}} {
		sc := fakeConfig(t, tc.mode)
		sc.CapabilityRequired = map[string][]string{"*": {"ReadSpace(files)"}, "read-greet*": {"WriteSpace(greet)"}}
		_, rec, _, err := startBridge(t, map[string]ServerConfig{"f": sc})
		if err != nil {
			t.Fatal(err)
		}
		reg := rec.provider("org.aios.mcp.f").Describe()
		seen := 0
		for _, d := range reg.Tools {
			if !slices.Contains(d.CapabilityRequired, "ReadSpace(files)") {
				t.Errorf("%s: %s requires %v, not ReadSpace(files) of capability_required \"*\"", tc.mode, d.Name, d.CapabilityRequired)
			}
			if strings.HasPrefix(d.Name, tc.want) {
				seen++
			}
			if greet := d.Name == "mcp-f-read-greeting"; greet != slices.Contains(d.CapabilityRequired, "WriteSpace(greet)") {
				t.Errorf("%s: %s requires %v (read-greet* matches it: %v)", tc.mode, d.Name, d.CapabilityRequired, greet)
			}
		}
		if seen == 0 {
			t.Fatalf("%s: no %s tools among %v", tc.mode, tc.want, rec.toolNames("org.aios.mcp.f"))
		}
	}
}
