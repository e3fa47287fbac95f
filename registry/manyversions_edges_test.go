package registry

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestNoMatchListsFewVersions: a call asking for a version of a tool with
// thousands of them (one provider may register up to
// limits.max_tools_per_provider) was told every version, and every
// shadowed one the constraint matched, in the message: 1 000 versions made
// a message of 10 KB, 5 000 of 49 KB, and aios-host diff's "no version"
// the same; a valid constraint of 512 bytes, mostly spaces, came back whole
// too. The message now lists the newest 16 versions after how many older
// ones there are, the first 16 shadowed ones and how many more, and the
// constraint clipped; Data still lists them all.
func TestNoMatchListsFewVersions(t *testing.T) {
	r := New()
	var defs []abi.ToolDef
	for i := range 1000 {
		defs = append(defs, tool("t", fmt.Sprintf("1.%d.0", i)))
	}
	if err := r.Register(prov("org.x.a"), defs); err != nil {
		t.Fatal(err)
	}
	check := func(err error, data string, n int, subs ...string) {
		t.Helper()
		wantCode(t, err, abi.NotFound, subs...)
		te := abi.AsToolError(err, abi.Internal)
		if len(te.Message) > 2048 {
			t.Errorf("message of %d bytes: %.300s…", len(te.Message), te.Message)
		}
		if got, _ := te.Data.(map[string]any)[data].([]string); len(got) != n {
			t.Errorf("Data.%s lists %d, want %d", data, len(got), n)
		}
	}
	_, err := r.Resolve("t", ">=9")
	check(err, "available", 1000, "tool t", `">=9"`, "984 older, 1.984.0, ", ", 1.999.0)")
	_, err = r.Resolve("t", strings.Repeat(" ", 400)+">=9")
	check(err, "available", 1000, "tool t", "…(403 bytes)", "984 older")
	_, err = r.Diff("t", "9.9.9", "")
	check(err, "available", 1000, "tool t", "no version 9.9.9", "984 older, 1.984.0, ")
	_, err = r.Diff("t", "", "1.0.0")
	check(err, "available", 1000, "tool t", "no version below 1.0.0", "984 older")

	// A more trusted provider takes the name: the 1 000 are shadowed.
	sys := prov("org.x.sys")
	sys.Trust = abi.System
	if err := r.Register(sys, []abi.ToolDef{tool("t", "0.1.0")}); err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve("t", "^1")
	check(err, "shadowed", 1000, "available: 0.1.0)", "t@1.0.0 (org.x.a), ", "t@1.15.0 (org.x.a) and 984 more shadowed")
}
