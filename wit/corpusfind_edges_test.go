package wit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindCorpusAboveWorktree: the corpus was looked for in ROOT/shared
// and ROOT/../shared only, so in a checkout one level deeper (a git
// worktree at /work/wt/NAME beside /work/shared) TestCorpus,
// TestCorpusSchemas, TestCorpusRefusalsHavePositions and the corpus seeds
// of FuzzParse were skipped without a failure. It is looked for in every
// folder above the root, the nearest first.
func TestFindCorpusAboveWorktree(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "wt", "p1")
	want := filepath.Join(top, "shared", "corpus", "wit-parser-ui")
	for _, d := range []string{root, want} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := findCorpusFrom(root); err != nil || got != want {
		t.Errorf("findCorpusFrom(%s) = %q, %v; want %q", root, got, err, want)
	}
	// The nearest wins: one beside the root comes before one further up.
	near := filepath.Join(top, "wt", "shared", "corpus", "wit-parser-ui")
	if err := os.MkdirAll(near, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := findCorpusFrom(root); err != nil || got != near {
		t.Errorf("findCorpusFrom(%s) = %q, %v; want %q", root, got, err, near)
	}
	// None anywhere: the error, with the first place looked at.
	lone := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(lone, 0o755); err != nil {
		t.Fatal(err)
	}
	// (A machine with a corpus above the temporary folder finds that one.)
	got, err := findCorpusFrom(lone)
	if err == nil && strings.HasPrefix(got, filepath.Dir(lone)) || err != nil && got != filepath.Join(lone, "shared", "corpus", "wit-parser-ui") {
		t.Errorf("findCorpusFrom(%s) = %q, %v; want the root's own place and an error", lone, got, err)
	}
}
