package registry

import (
	"strconv"
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

// TestConstraintVersionOutOfRangeSaysWhich: a constraint whose version has
// the form of one but not the value, a number past 2^64-1 or a
// pre-release identifier with a leading zero, was refused as "constraint
// parser error" (the parser's words), naming neither the version nor what
// is wrong with it. It now names the version and why.
func TestConstraintVersionOutOfRangeSaysWhich(t *testing.T) {
	r := New()
	if err := r.Register(prov("org.x.a"), []abi.ToolDef{tool("t", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ constraint, want string }{
		{">=1.0.0 <99999999999999999999.0", `version "99999999999999999999.0" in it: `},
		{"^99999999999999999999", `version "99999999999999999999" in it: `},
		{"1.x || 1.0.0-01", `version "1.0.0-01" in it: version segment starts with 0`},
		{">= 1.2.3, <= 1.2.99999999999999999999", `version "1.2.99999999999999999999" in it`},
	} {
		_, err := r.Resolve("t", c.constraint)
		wantCode(t, err, abi.InvalidParams, "tool t", strconv.Quote(c.constraint), c.want)
		if te := abi.AsToolError(err, abi.Internal); strings.Contains(te.Message, "constraint parser error") {
			t.Errorf("%s", te.Message)
		}
	}
	// Other refusals keep the parser's reason.
	_, err := r.Resolve("t", ">=a")
	wantCode(t, err, abi.InvalidParams, `improper constraint: ">=a"`)
}
