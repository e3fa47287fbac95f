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
