package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectTypeDeclarationSaysSo: inspect of a TypeScript declaration
// file (aios-sdk.d.ts, types.d.ts) bundled it as a tool and failed "the
// provider registers no tools: call aios.registerTool(…)", as if the
// types were a tool missing its registration; the host loads no .d.ts
// (host.IsTypeDeclaration). It now says the file holds types only and to
// inspect the file that registers the tools.
func TestInspectTypeDeclarationSaysSo(t *testing.T) {
	e := newEnv(t)
	f := filepath.Join(t.TempDir(), "types.d.ts")
	if err := os.WriteFile(f, []byte("export interface Shape { n: number }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.run("", "inspect", f)
	if code == exitOK || !strings.Contains(errs, f) || !strings.Contains(errs, "TypeScript declaration file") || strings.Contains(errs, "registers no tools") {
		t.Fatalf("inspect of a .d.ts: exit %d, stderr %q; want it named as a TypeScript declaration file", code, errs)
	}
}
