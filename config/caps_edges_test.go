package config

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// A CallTool, ReadSpace or WriteSpace pattern with a character no tool
// name or space name can hold grants nothing, silently: a version
// (CallTool(echo@^1)), capitals in a space name, a look-alike letter. Such
// a grant is refused, saying why.
func TestGrantArgsThatMatchNothing(t *testing.T) {
	for src, want := range map[string]string{
		"agents:\n  a:\n    grants: [\"CallTool(echo@^1)\"]\n":         `agents.a.grants[0]: capability "CallTool(echo@^1)": '@' is in no tool name`,
		"agents:\n  a:\n    grants: [\"ReadSpace(Docs)\"]\n":           `'D' is in no space name`,
		"agents:\n  a:\n    grants: [\"WriteSpace(scratch/x)\"]\n":     `'/' is in no space name`,
		"agents:\n  a:\n    grants: [\"CallTool(\u0435cho)\"]\n":       `'е' is in no tool name`,
		"trust:\n  caps:\n    Community: [\"CallTool(pdf:*)\"]\n":      `':' is in no tool name`,
		"providers:\n  org.x:\n    grants: [\"ReadSpace(my docs)\"]\n": `white space`,
	} {
		parseErr(t, src, want)
	}
	for _, src := range []string{
		"agents:\n  a:\n    grants: [\"CallTool(pdf-*)\", \"CallTool(Img.Resize_v?)\", \"ReadSpace(docs-*)\", \"WriteSpace(a.b_c)\", \"ReadSpace(*)\"]\n",
	} {
		if _, err := Parse([]byte(src), "c.yaml"); err != nil {
			t.Errorf("Parse(%q): %v", src, err)
		}
	}
}

// trust.caps keys are trust level names, case-insensitive: "community"
// is Community's entry and replaces the default one; two spellings of one
// level are refused.
func TestTrustCapsKeyCase(t *testing.T) {
	c, err := Parse([]byte("trust:\n  caps:\n    community: [\"CallTool(*)\"]\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.TrustCaps(abi.Community)
	if err != nil || len(g) != 1 || g[0].String() != "CallTool(*)" {
		t.Errorf("Community caps %v, %v", g, err)
	}
	if caps, ok := c.TrustCapsOf(abi.Community); !ok || len(caps) != 1 {
		t.Errorf("TrustCapsOf(Community) = %v, %v", caps, ok)
	}
	parseErr(t, "trust:\n  caps:\n    community: [\"CallTool(*)\"]\n    COMMUNITY: []\n", `name the same trust level Community`)
}
