package js

import (
	"github.com/aios-host/aios-host/internal/testutil"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tsc returns the pinned TypeScript compiler under sdk/js, or fails telling
// how to install it.
func tsc(t *testing.T) (root, bin string) {
	t.Helper()
	root = testutil.RepoRoot(t)
	bin = filepath.Join(root, "sdk", "js", "node_modules", ".bin", "tsc")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is missing: run `scripts/deps.sh` (or `npm ci` in sdk/js) to install the pinned TypeScript compiler", bin)
	}
	return root, bin
}

// TestTypeCheckSamples type-checks the TS samples (the seed's Summarizer,
// unchanged, and the conformance provider) against sdk/js/aios-sdk.d.ts.
func TestTypeCheckSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("tsc takes seconds; skipped with -short")
	}
	root, bin := tsc(t)
	out, err := exec.Command(bin, "-p", filepath.Join(root, "sdk", "js", "tsconfig.json")).CombinedOutput()
	if err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}

// TestTypeCheckCatchesMistakes shows the declarations reject misuse of ctx.
func TestTypeCheckCatchesMistakes(t *testing.T) {
	if testing.Short() {
		t.Skip("tsc takes seconds; skipped with -short")
	}
	root, bin := tsc(t)
	bad := writeSource(t, "bad.ts", `import { Agent, tool, Capability } from 'aios-sdk';
@Agent({ name: 'X', capabilities: [Capability.Inference] })
class X {
  @tool({ name: 'x' })
  async x(params: { id: string }, ctx: AgentContext) {
    const doc = await ctx.spaces.reed(params.id);
    const n: number = await ctx.ai.complete('hi');
    return { doc, n };
  }
}
`)
	cmd := exec.Command(bin, "--noEmit", "--strict", "--target", "ES2017", "--lib", "ES2020", "--typeRoots", filepath.Join(root, "sdk", "js", "no-types"),
		filepath.Join(root, "sdk", "js", "aios-sdk.d.ts"), bad)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("tsc accepted a provider with type errors")
	}
	for _, want := range []string{"bad.ts(6,34)", "'reed' does not exist", "bad.ts(7,11)", "not assignable to type 'number'"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("tsc output lacks %q:\n%s", want, out)
		}
	}
}
