package trust

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingArtifactNotCalledMismatch: an artifact (or another pinned
// file) that is not there was refused as "artifact does not match the
// card's pinned digest: artifact \"tool.js\": open …: no such file or
// directory" (found by p161): no digest was compared, and the first words
// sent the operator looking for a changed file. It says the file the card
// pins cannot be read; it is still ErrArtifact.
func TestMissingArtifactNotCalledMismatch(t *testing.T) {
	dir := t.TempDir()
	pin := &ArtifactPin{Path: "tool.js", SHA256: strings.Repeat("0", 64)}
	err := pin.Check(dir)
	if !errors.Is(err, ErrArtifact) || !errors.Is(err, ErrArtifactUnreadable) {
		t.Fatalf("missing artifact: %v; want ErrArtifactUnreadable and ErrArtifact", err)
	}
	if msg := err.Error(); strings.Contains(msg, "does not match") || !strings.Contains(msg, "cannot be read") || !strings.Contains(msg, `"tool.js"`) {
		t.Fatalf("missing artifact: %q; want it said the file cannot be read, naming it", msg)
	}
	// A file there with another digest is still a mismatch.
	if err := os.WriteFile(filepath.Join(dir, "tool.js"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := pin.Check(dir); !errors.Is(err, ErrArtifact) || errors.Is(err, ErrArtifactUnreadable) || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("changed artifact: %v; want a digest mismatch", err)
	}
}
