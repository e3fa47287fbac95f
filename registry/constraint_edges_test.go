package registry

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestMidLengthBadConstraintSaysWhy: a constraint of 129 to 512 bytes
// that did not parse (a typo in one of its ranges, more than 32 "||"
// groups) was refused as "longer than a constraint can be", which is
// false (the parser takes up to 512 bytes) and hid what was wrong. Such a
// constraint is now refused with the parser's reason; only one over the
// parser's limit is said to be too long, naming the limit.
func TestMidLengthBadConstraintSaysWhy(t *testing.T) {
	r := New()
	if err := r.Register(prov("org.x.a"), []abi.ToolDef{tool("t", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	typo := strings.Repeat(">=1.0.0, <2.0.0 || ", 8) + "^^1"
	groups := strings.Repeat("1.0.0 || ", 33) + "1.0.0"
	for _, c := range []struct{ constraint, want string }{
		{typo, "improper constraint"},
		{groups, "too many constraint groups (max 32)"},
		{strings.Repeat("1", 600), "longer than a constraint can be (at most 512 bytes)"},
	} {
		if len(c.constraint) <= maxShownConstraint {
			t.Fatalf("constraint of %d bytes is not past the shown length", len(c.constraint))
		}
		_, err := r.Resolve("t", c.constraint)
		wantCode(t, err, abi.InvalidParams, "tool t", c.want)
		if te := abi.AsToolError(err, abi.Internal); len(te.Message) > 1024 {
			t.Errorf("message of %d bytes", len(te.Message))
		}
		if te := abi.AsToolError(err, abi.Internal); strings.Contains(te.Message, "longer than") != strings.Contains(c.want, "longer than") {
			t.Errorf("%d bytes: %s", len(c.constraint), te.Message)
		}
	}
}
