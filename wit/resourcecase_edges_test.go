package wit

import (
	"strings"
	"testing"
)

// TestResourceMembersCaseInsensitive: names are compared case-insensitively
// (docs/wit.md), and `f` beside `F` in an interface was refused, but a
// resource's `m` beside `M` (or a static `M`) was taken: a component of
// that WIT has `[method]r.m` and `[method]r.M`, one name to a component
// validator. They are refused naming both.
func TestResourceMembersCaseInsensitive(t *testing.T) {
	for _, src := range []string{
		"package a:b;\ninterface i { resource r { m: func(); M: func(); } }\n",
		"package a:b;\ninterface i { resource r { get-x: func(); GET-X: static func(); } }\n",
		"package a:b;\nworld w { resource r { m: static func(); M: func(); } }\n",
	} {
		_, err := ParseSource("r.wit", src, Options{})
		if err == nil || !strings.Contains(err.Error(), "r.wit:2:") || !strings.Contains(err.Error(), "conflicts with") {
			t.Errorf("%q: got %v, want the second member refused", src, err)
		}
	}
	// Different resources may share member names in any case.
	if _, err := ParseSource("r.wit", "package a:b;\ninterface i { resource r { m: func(); } resource s { M: func(); } }\n", Options{}); err != nil {
		t.Error(err)
	}
}
