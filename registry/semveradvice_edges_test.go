package registry

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestSemverRefusalAdvisesAFreeVersion: a breaking 1.2.0 refused under
// registry.semver_check: refuse was told "release it as 2.0.0" while 2.0.0
// was registered already (the publisher's own, or another provider's):
// taking the advice redefined that release, or was a Conflict. The advice
// now names the first major version (for 0.x, minor) that holds no
// registered version.
func TestSemverRefusalAdvisesAFreeVersion(t *testing.T) {
	opt := map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}}
	req := map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []any{"a"}}
	mk := func(v string, p map[string]any) abi.ToolDef {
		d := tool("t", v)
		d.Parameters = p
		return d
	}
	for _, c := range []struct {
		name      string
		held      []abi.ToolDef // org.a's
		other     []abi.ToolDef // org.b's
		breaking  abi.ToolDef
		want, not string
	}{
		{"own 2.0.0", []abi.ToolDef{mk("1.1.0", opt), mk("2.0.0", req)}, nil, mk("1.2.0", req), "release it as 3.0.0", "release it as 2.0.0"},
		{"other's 2.x and 3.0.0-rc.1", []abi.ToolDef{mk("1.1.0", opt)}, []abi.ToolDef{mk("2.4.0", req), mk("3.0.0-rc.1", req)}, mk("1.2.0", req), "release it as 4.0.0", "release it as 2.0.0"},
		{"0.x", []abi.ToolDef{mk("0.1.0", opt), mk("0.2.0", req), mk("1.0.0", req)}, nil, mk("0.1.1", req), "release it as 0.3.0 or 2.0.0", "0.2.0 or"},
		{"nothing above", []abi.ToolDef{mk("1.1.0", opt)}, nil, mk("1.2.0", req), "release it as 2.0.0", "3.0.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := New()
			if err := r.SetSemverCheck(SemverRefuse, nil); err != nil {
				t.Fatal(err)
			}
			if err := r.Register(prov("org.a"), c.held); err != nil {
				t.Fatal(err)
			}
			if c.other != nil {
				if err := r.Register(prov("org.b"), c.other); err != nil {
					t.Fatal(err)
				}
			}
			err := r.Replace(prov("org.a"), append(c.held, c.breaking))
			wantCode(t, err, abi.InvalidRequest, "breaks callers of", c.want)
			if te := abi.AsToolError(err, abi.Internal); strings.Contains(te.Message, c.not) {
				t.Errorf("refusal advises a version that is registered: %s", te.Message)
			}
		})
	}
}
