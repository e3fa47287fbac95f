//go:build unix

package wit

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWitFolderFIFORefused: a named pipe called x.wit in a package folder
// or its deps/ was opened as a file of the package, and the read waited
// for a writer for good (aios-host wit DIR hung); a FIFO, socket or device
// found in a folder is refused naming it. A file named alone is read as it
// comes (`aios-host wit <(curl …)`).
func TestWitFolderFIFORefused(t *testing.T) {
	for _, where := range []string{"", "deps"} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "deps"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "a.wit"), []byte("package a:b;\ninterface i {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fifo := filepath.Join(dir, where, "x.wit")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := ParseDir(dir, Options{})
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			// Opened as a file: give it a writer, so the test ends.
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			<-done
			t.Fatalf("%s: ParseDir waited on the FIFO", fifo)
		}
		if err == nil || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("%s: got %v, want it refused as a named pipe", fifo, err)
		}
	}
}
