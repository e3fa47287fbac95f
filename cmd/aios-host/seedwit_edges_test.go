package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedWIT is seed 000 §9.6's tool-provider.wit, verbatim.
const seedWIT = `// tool-provider.wit
package my-tools:image-tools@1.0.0;

interface tool-handler {
    record tool-params {
        object-id: string,
        width: u32,
        height: u32,
        format: string,
    }

    record tool-result {
        output-id: string,
        original-size: u64,
        resized-size: u64,
    }

    resize: func(params: tool-params) -> result<tool-result, string>;
}

world image-tool-provider {
    import aios:sdk/spaces@0.1.0;
    export tool-handler;
}
`

// The seed's WIT imports aios:sdk/spaces@0.1.0, the host's own package.
// `aios-host wit` on it failed: "package 'aios:sdk@0.1.0' not found.
// known packages: my-tools:image-tools@1.0.0", though the host is what
// defines aios:sdk, and nothing said where its WIT is. The command knows
// the host's aios:sdk@0.1.0 and resolves it when the file or folder does
// not bring its own, and prints it with the rest (a component author gets
// the WIT to build against from the binary).
func TestWitSeedImportsHostSDK(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "tool-provider.wit")
	if err := os.WriteFile(file, []byte(seedWIT), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{file, dir} {
		code, out, errs := e.bare("wit", arg)
		if code != 0 {
			t.Fatalf("aios-host wit %s: exit %d, stderr %q", arg, code, errs)
		}
		for _, want := range []string{"package aios:sdk@0.1.0", "read: func(object-id: string) -> result<list<u8>, string>;",
			"import aios:sdk/spaces@0.1.0;", "resize: func(params: tool-params) -> result<tool-result, string>;"} {
			if !strings.Contains(out, want) {
				t.Errorf("aios-host wit %s: output lacks %q:\n%s", arg, want, out)
			}
		}
	}

	// A package that uses no aios:sdk is printed without it.
	plain := filepath.Join(t.TempDir(), "plain.wit")
	if err := os.WriteFile(plain, []byte("package a:b;\ninterface i { f: func(); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := e.bare("wit", plain); code != 0 || strings.Contains(out, "aios:sdk") {
		t.Fatalf("aios-host wit of a package without aios:sdk: %d %q %q", code, out, errs)
	}

	// Another version of aios:sdk is not the host's: still not found,
	// and the error names the version the host has.
	other := filepath.Join(t.TempDir(), "other.wit")
	if err := os.WriteFile(other, []byte(strings.Replace(seedWIT, "spaces@0.1.0", "spaces@0.2.0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.bare("wit", other); code != exitFail || !strings.Contains(errs, "aios:sdk@0.2.0") || !strings.Contains(errs, "aios:sdk@0.1.0") {
		t.Fatalf("aios-host wit importing aios:sdk@0.2.0: %d %q", code, errs)
	}
}
