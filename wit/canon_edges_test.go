package wit

import (
	"strings"
	"testing"
)

// TestKebabDigitFragments: the Component Model's label grammar
// (Explainer.md, since component-model#592) lets every fragment but the
// first start with a digit (`a-1`, `sha-256`, `a1-2-3`), and wasm-tools'
// validate_id accepts them; the first fragment must still start with a
// letter and a fragment may not mix cases.
func TestKebabDigitFragments(t *testing.T) {
	for _, id := range []string{"a-1", "sha-256", "a1-2-3", "x-2X", "abc-0-def", "HTTP-1-1"} {
		src := "package a:b; interface i { " + id + ": func(); }"
		if _, err := ParseSource("x.wit", src, Options{}); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	for _, id := range []string{"1a", "a--b", "a-", "a-Bc", "a-1b2C", "a-1B2c", "a_1"} {
		src := "package a:b; interface i { " + id + ": func(); }"
		if _, err := ParseSource("x.wit", src, Options{}); err == nil {
			t.Errorf("%s: accepted", id)
		}
	}
}

// TestCharReplacementCharFromJSON: U+FFFD is a Unicode scalar value
// like any other; a char parameter "\uFFFD" (which the schema, one code
// point, accepts) was refused as not one character.
func TestCharReplacementCharFromJSON(t *testing.T) {
	ct := &Type{Kind: KindChar}
	v, err := FromJSON(ct, "\uFFFD", "$.params.c")
	if err != nil || v != rune(0xFFFD) {
		t.Fatalf("got %v %v, want U+FFFD", v, err)
	}
	for _, bad := range []string{"\xff", "", "ab", "\xef\xbf"} {
		if _, err := FromJSON(ct, bad, "$.params.c"); err == nil || !strings.Contains(err.Error(), "$.params.c") {
			t.Errorf("%q: got %v, want an error naming the path", bad, err)
		}
	}
}

// TestSemverPrerelease: SemVer 2.0 forbids leading zeros in numeric
// pre-release identifiers (`1.0.0-01`), which wasm-tools (the semver
// crate) refuses; build metadata may have them. A version number over
// 2^64-1 (which the semver crate refuses) compared as 0, so a @since of
// such a version passed as older than any package.
func TestSemverPrerelease(t *testing.T) {
	for _, v := range []string{"1.0.0-01", "1.0.0-rc.00", "1.0.0-0.01", "18446744073709551616.0.0", "1.99999999999999999999.0"} {
		if _, err := ParseSource("x.wit", "package a:b@"+v+"; interface i {}", Options{}); err == nil {
			t.Errorf("%s: accepted", v)
		}
	}
	for _, v := range []string{"1.0.0-0", "1.0.0-0a", "1.0.0-rc.0", "1.0.0+01", "1.0.0-x.0+00.1", "1.0.0--1"} {
		if _, err := ParseSource("x.wit", "package a:b@"+v+"; interface i {}", Options{}); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
}

// TestSourceCharacters: WIT source may hold any character but the
// ones wasm-tools refuses (detect_invalid_input: control codes, C1 ones
// too, bidirectional overrides, a few deprecated code points). U+FFFD in a
// comment or string was refused as if it were invalid UTF-8; U+0085 (a C1
// control) and the deprecated U+0149 were accepted.
func TestSourceCharacters(t *testing.T) {
	for _, ok := range []string{"// a \uFFFD b\n", "/* \uFFFD */", "/// \u00e9\u6771\n"} {
		if _, err := ParseSource("x.wit", ok+"package a:b; interface i {}", Options{}); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"// \u0085\n", "/* \u009f */", "// \u0149\n", "// \u17b5\n", "// \u202e\n", "// \x01\n", "// \xff\n", "// \x7f\n"} {
		if _, err := ParseSource("x.wit", bad+"package a:b; interface i {}", Options{}); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	if _, err := ParseSource("x.wit", "package a:b;\ninterface i {}\n// ok \xff", Options{}); err == nil || !strings.Contains(err.Error(), "x.wit:3:7") {
		t.Errorf("invalid UTF-8: %v, want its position x.wit:3:7", err)
	}
}
