package wit

import (
	"strings"
	"testing"
)

// TestSinceNeedsPackageVersion: `@since(version = …)` in a package without
// a version was accepted (the check against the package version was
// skipped), where wasm-tools refuses the package: a version gate means
// nothing without a version to compare it to. It is refused, naming the
// package and where the gate is.
func TestSinceNeedsPackageVersion(t *testing.T) {
	for _, src := range []string{
		"package a:b;\ninterface i {\n  @since(version = 1.0.0) f: func();\n}\n",
		"package a:b;\n@since(version = 1.0.0)\ninterface i {\n}\n",
		"package a:b;\nworld w {\n  @since(version = 0.1.0) export f: func();\n}\n",
	} {
		_, err := ParseSource("x.wit", src, Options{})
		if err == nil || !strings.Contains(err.Error(), "package [a:b] contains a feature gate with a version specifier, so it must have a version") || !strings.HasPrefix(err.Error(), "x.wit:") {
			t.Errorf("%q: %v", src, err)
		}
	}
	// @unstable needs no version, and a versioned package takes @since.
	for _, src := range []string{
		"package a:b;\ninterface i {\n  @unstable(feature = x) f: func();\n}\n",
		"package a:b@1.0.0;\ninterface i {\n  @since(version = 1.0.0) f: func();\n}\n",
	} {
		if _, err := ParseSource("x.wit", src, Options{}); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// TestPrintDropsForeignSince: a world that includes a world of a versioned
// package takes in its items with their @since gates; printed in a package
// without a version (or an older one) those gates did not parse again. The
// printer leaves out a @since the printing package could not hold, and
// keeps the ones it can.
func TestPrintDropsForeignSince(t *testing.T) {
	for _, tc := range []struct{ root, wantSince string }{
		{"package a:root;", ""},
		{"package a:root@0.1.0;", ""},
		{"package a:root@2.0.0;", "@since(version = 1.0.0)"},
	} {
		src := tc.root + "\nworld w {\n  include b:dep/imports@1.0.0;\n}\n" +
			"package b:dep@1.0.0 {\n  world imports {\n    @since(version = 1.0.0) import f: func();\n  }\n}\n"
		res, err := ParseSource("x.wit", src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.root, err)
		}
		text := Print(res)
		if _, err := ParseSource("printed.wit", text, Options{}); err != nil {
			t.Errorf("%s: printed text does not parse: %v\n%s", tc.root, err, text)
		}
		rootText := text[:strings.Index(text, "package b:dep")]
		if tc.wantSince == "" && strings.Contains(rootText, "@since") || tc.wantSince != "" && !strings.Contains(rootText, tc.wantSince) {
			t.Errorf("%s: root package printed as\n%s", tc.root, rootText)
		}
		if !strings.Contains(text[len(rootText):], "@since(version = 1.0.0)") {
			t.Errorf("%s: the dependency lost its own gate:\n%s", tc.root, text)
		}
	}
}

// TestPrintForeignSinceWithDeprecated: an item included from a world of
// another package may carry `@since(…) @deprecated(…)`; where the printing
// package cannot hold that @since the printer left it out but kept the
// @deprecated, which alone does not parse ("@deprecated must be paired
// with @since or @unstable"): `aios-host wit` printed WIT that it refused.
// A deprecation goes with the @since it is left out with; one paired with
// @unstable stays.
func TestPrintForeignSinceWithDeprecated(t *testing.T) {
	dep := "package b:dep@1.0.1 {\n  interface i {\n    f: func();\n  }\n  world imports {\n" +
		"    @since(version = 1.0.0)\n    @deprecated(version = 1.0.1)\n    import i;\n" +
		"    @since(version = 1.0.0)\n    @deprecated(version = 1.0.1)\n    import g: func();\n" +
		"    @since(version = 1.0.0)\n    @deprecated(version = 1.0.1)\n    type t = u32;\n" +
		"    @since(version = 1.0.0)\n    resource r {\n      @since(version = 1.0.0)\n      @deprecated(version = 1.0.1)\n      m: func();\n    }\n" +
		"    @unstable(feature = x)\n    @deprecated(version = 1.0.1)\n    import h: func();\n" +
		"  }\n}\n"
	for _, root := range []string{"package a:root;", "package a:root@0.1.0;", "package a:root@2.0.0;"} {
		src := root + "\nworld w {\n  include b:dep/imports@1.0.1;\n}\n" + dep
		res, err := ParseSource("x.wit", src, Options{AllFeatures: true})
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		text := Print(res)
		if _, err := ParseSource("printed.wit", text, Options{AllFeatures: true}); err != nil {
			t.Errorf("%s: printed text does not parse: %v\n%s", root, err, text)
			continue
		}
		rootText := text[:strings.Index(text, "package b:dep")]
		want := 1 // h's, paired with @unstable
		if root == "package a:root@2.0.0;" {
			want = 5 // every one, with its @since
		}
		if n := strings.Count(rootText, "@deprecated(version = 1.0.1)"); n != want {
			t.Errorf("%s: %d deprecations in the root package, want %d:\n%s", root, n, want, rootText)
		}
		if n := strings.Count(text[len(rootText):], "@deprecated(version = 1.0.1)"); n != 5 {
			t.Errorf("%s: the dependency has %d deprecations, want 5:\n%s", root, n, text)
		}
	}
}
