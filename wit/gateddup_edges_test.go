package wit

import (
	"strings"
	"testing"
)

// TestGatedOutNameStillDefined: a name defined twice in an interface was
// accepted when one of the two definitions was `@unstable` with its
// feature off (the kept one silently replaced the left-out one, or the
// left-out one was dropped), so the package changed meaning when the
// feature was turned on ("defined more than once" only then). wasm-tools
// refuses the package whatever the features; so does the resolver now.
func TestGatedOutNameStillDefined(t *testing.T) {
	for _, body := range []string{
		"@unstable(feature = x) f: func(); f: func(x: u32);",
		"f: func(x: u32); @unstable(feature = x) f: func();",
		"@unstable(feature = x) type t = u32; type t = string;",
		"type t = string; @unstable(feature = x) record t { a: u32 }",
	} {
		src := "package a:b@1.0.0;\ninterface i { " + body + " }\n"
		for _, opts := range []Options{{}, {Features: []string{"x"}}} {
			_, err := ParseSource("x.wit", src, opts)
			if err == nil || !strings.Contains(err.Error(), "is defined more than once") || !strings.HasPrefix(err.Error(), "x.wit:2:") {
				t.Errorf("%s (features %v): %v", body, opts.Features, err)
			}
		}
	}
}

// TestGatedOutWorldItemStillDefined: the same for a world's imports and
// exports: `@unstable(feature = x) import f: func(); import f: func(x: u32);`
// was accepted with the feature off.
func TestGatedOutWorldItemStillDefined(t *testing.T) {
	for _, body := range []string{
		"@unstable(feature = x) import f: func(); import f: func(x: u32);",
		"export f: func(x: u32); @unstable(feature = x) export f: func();",
		"@unstable(feature = x) export i: interface { f: func(); } export i: func();",
	} {
		src := "package a:b@1.0.0;\nworld w { " + body + " }\n"
		for _, opts := range []Options{{}, {Features: []string{"x"}}} {
			_, err := ParseSource("x.wit", src, opts)
			if err == nil || !strings.HasPrefix(err.Error(), "x.wit:2:") {
				t.Errorf("%s (features %v): %v", body, opts.Features, err)
			}
		}
	}
	// An import and an export may share a name.
	if _, err := ParseSource("x.wit", "package a:b@1.0.0;\nworld w { @unstable(feature = x) import f: func(); export f: func(); }\n", Options{}); err != nil {
		t.Error(err)
	}
}

// TestGatedOutMemberStillDefined: the same for a resource's members:
// `@unstable(feature = x) m: func(); m: func();` (or two constructors, one
// gated) was accepted with the feature off and refused with it on;
// wasm-tools refuses it whatever the features.
func TestGatedOutMemberStillDefined(t *testing.T) {
	for _, body := range []string{
		"@unstable(feature = x) m: func(); m: func(x: u32);",
		"m: static func(); @unstable(feature = x) m: func();",
		"@unstable(feature = x) constructor(); constructor(x: u32);",
	} {
		src := "package a:b@1.0.0;\ninterface i { resource r { " + body + " } }\n"
		for _, opts := range []Options{{}, {Features: []string{"x"}}} {
			_, err := ParseSource("x.wit", src, opts)
			if err == nil || !strings.Contains(err.Error(), "duplicate") || !strings.HasPrefix(err.Error(), "x.wit:2:") {
				t.Errorf("%s (features %v): %v", body, opts.Features, err)
			}
		}
	}
}

// TestGatedOutWorldUseStillDefined: a world's `use` gated off left its
// names undefined, so `@unstable(feature = x) use i.{t}; use i.{t};` was
// accepted with the feature off and refused with it on (an interface's
// gated-off `use` keeps its names, as wasm-tools does).
func TestGatedOutWorldUseStillDefined(t *testing.T) {
	for _, body := range []string{
		"@unstable(feature = x) use i.{t}; use i.{t};",
		"@unstable(feature = x) use i.{t as u}; type u = u32;",
	} {
		src := "package a:b@1.0.0;\nworld w { " + body + " }\ninterface i { type t = u8; }\n"
		for _, opts := range []Options{{}, {Features: []string{"x"}}} {
			_, err := ParseSource("x.wit", src, opts)
			if err == nil || !strings.Contains(err.Error(), "is defined more than once") || !strings.HasPrefix(err.Error(), "x.wit:2:") {
				t.Errorf("%s (features %v): %v", body, opts.Features, err)
			}
		}
	}
}
