package host

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestGrantPatternsOverlap: two grant patterns that overlap, neither
// within the other, intersected to nothing: an agent holding
// CallTool(pdf-*) calling a relay whose provider holds CallTool(*-extract)
// could not have it call pdf-extract, which both allow, and ReadSpace(a*)
// against ReadSpace(*b) read no space at all. What both match is allowed
// now, and only that.
func TestGrantPatternsOverlap(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["pdf"] = config.Agent{Grants: []string{"CallTool(relay)", "CallTool(pdf-*)"}}
		c.Agents["a-star"] = config.Agent{Grants: []string{"CallTool(*)", "ReadSpace(a*)"}}
	})
	addSystem(t, te, relayProvider("org.probe.relay", "CallTool(*-extract)", "CallTool(read)", "ReadSpace(*b)"))
	docs := native.New(abi.ProviderInfo{ID: "org.probe.docs"})
	for _, name := range []string{"pdf-extract", "pdf-merge", "doc-extract", "pdf-x-extract"} {
		docs.MustRegister(abi.ToolDef{Name: name, Version: "1.0.0"},
			func(context.Context, any, abi.Env) (any, error) { return name, nil })
	}
	addSystem(t, te, docs)

	for tool, want := range map[string]abi.ErrorCode{
		"pdf-extract":   "",
		"pdf-x-extract": "",
		"pdf-merge":     abi.CapabilityDenied, // the relay lacks it
		"doc-extract":   abi.CapabilityDenied, // the agent lacks it
	} {
		v, err := te.call("pdf", "relay", map[string]any{"tool": tool})
		wantCode(t, "pdf → relay → "+tool, err, want)
		if want == "" && err == nil && v != tool {
			t.Errorf("pdf → relay → %s = %v", tool, v)
		}
	}

	for _, sp := range []string{"ab", "axb", "a", "ba", "b", "abc"} {
		id, err := te.spaces.Put(sp, []byte("in "+sp))
		if err != nil {
			t.Fatal(err)
		}
		want := abi.CapabilityDenied
		if sp == "ab" || sp == "axb" {
			want = ""
		}
		v, err := te.call("a-star", "relay", map[string]any{"tool": "read", "params": map[string]any{"space": sp, "id": id}})
		wantCode(t, "a-star (ReadSpace(a*)) → relay (ReadSpace(*b)) → read "+sp, err, want)
		if want == "" && err == nil && v.(map[string]any)["data"] != "in "+sp {
			t.Errorf("read %s through relay = %v", sp, v)
		}
	}
}
