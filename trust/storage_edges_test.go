//go:build unix

package trust

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestArtifactFIFODoesNotHang: a pinned artifact (or pinned file)
// replaced by a FIFO made ArtifactPin.Check, and so `aios-host verify`,
// wait in open(2) for a writer that never comes; PinArtifact (`aios-host
// sign`) the same for the artifact. A file that is not a regular file is
// now refused, naming it.
func TestArtifactFIFODoesNotHang(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "plugin.wasm"), 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	pin := &ArtifactPin{Path: "plugin.wasm", SHA256: strings.Repeat("0", 64)}
	done := make(chan error, 1)
	go func() { done <- pin.Check(dir) }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrArtifact) || !strings.Contains(err.Error(), "plugin.wasm") || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("Check of a FIFO artifact: %v", err)
		}
	case <-time.After(5 * time.Second):
		// Unblock the open so that the goroutine ends.
		if f, err := os.OpenFile(filepath.Join(dir, "plugin.wasm"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("Check of a FIFO artifact hung")
	}
	if _, err := FileSHA256(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("FileSHA256 of a folder: %v", err)
	}
}
