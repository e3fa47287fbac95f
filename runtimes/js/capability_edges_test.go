package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestCapabilityHelpersCheckTheirArgument: aios.Capability.ReadSpace()
// (the space forgotten), ReadSpace(['a', 'b']) or ReadSpace('my docs')
// loaded without a word, the provider asking for "ReadSpace(undefined)" —
// a grant of a space named undefined — or "ReadSpace(a,b)". The Python
// SDK's Capability.ReadSpace refuses such an argument (ValueError naming
// it); the JS helpers now throw a TypeError naming the helper, the
// argument and the line, and a good argument gives the same string.
func TestCapabilityHelpersCheckTheirArgument(t *testing.T) {
	rt := newRuntime(t, Options{})
	for name, c := range map[string]struct{ src, want string }{
		"missing.js": {`aios.provider({ capabilities: [aios.Capability.ReadSpace()] });`, "Capability.ReadSpace(undefined)"},
		"array.js":   {`aios.provider({ capabilities: [aios.Capability.WriteSpace(['a', 'b'])] });`, "Capability.WriteSpace(an object)"},
		"space.js":   {`aios.provider({ capabilities: [aios.Capability.Network('my host')] });`, `Capability.Network("my host")`},
		"empty.ts": {`import { Agent, tool, Capability } from 'aios-sdk';
@Agent({ capabilities: [Capability.CallTool('')] })
class A { @tool({ name: 'a' }) a() { return 1; } }`, `Capability.CallTool("")`},
		"required.js": {`aios.registerTool({ name: 'b', capabilityRequired: aios.Capability.ReadSpace(7) }, () => 1);`, "Capability.ReadSpace(a number)"},
	} {
		path := writeSource(t, name, c.src+"\naios.registerTool({ name: 'x' }, () => 1);\n")
		_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
		if err == nil {
			t.Errorf("%s: loaded; want a TypeError naming %s", name, c.want)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "TypeError: "+c.want) || !strings.Contains(msg, "non-empty string") || !strings.Contains(msg, "(at "+name+":") {
			t.Errorf("%s: %v\nwant a TypeError naming %s, what it must be and the line", name, err, c.want)
		}
	}
	p := loadSource(t, rt, "good.js", `aios.provider({ id: 'org.test.good', capabilities: [aios.Capability.ReadSpace('docs'), aios.Capability.CallTool('pdf-*'), aios.Capability.Inference] });
aios.registerTool({ name: 'g', capabilityRequired: aios.Capability.WriteSpace('out') }, () => 1);
`)
	reg := p.Describe()
	if got := strings.Join(reg.Provider.Capabilities, " "); got != "ReadSpace(docs) CallTool(pdf-*) Inference" {
		t.Errorf("capabilities %q", got)
	}
	if got := reg.Tools[0].CapabilityRequired; len(got) != 1 || got[0] != "WriteSpace(out)" {
		t.Errorf("capability_required %q", got)
	}
}
