package fsperm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// ReadRegular reads a regular file within its limit and refuses, at once
// and naming the path, a FIFO with no writer, a device, a folder and a
// file over the limit.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "token")
	if err := os.WriteFile(ok, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadRegular(ok, 64); err != nil || string(b) != "s3cret\n" {
		t.Fatalf("a regular file: %q %v", b, err)
	}
	if _, err := ReadRegular(ok, 3); err == nil || !strings.Contains(err.Error(), ok) || !strings.Contains(err.Error(), "larger than 3 bytes") {
		t.Errorf("over the limit: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	testutil.Mkfifo(t, fifo)
	done := make(chan error, 1)
	go func() { _, err := ReadRegular(fifo, 64); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), fifo+" is not a regular file (a FIFO (named pipe))") {
			t.Errorf("a FIFO: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("ReadRegular waited on a FIFO with no writer")
	}
	for path, kind := range map[string]string{os.DevNull: "a character device", dir: "a folder"} {
		if _, err := ReadRegular(path, 64); err == nil || !strings.Contains(err.Error(), path+" is not a regular file ("+kind+")") {
			t.Errorf("%s: %v", path, err)
		}
	}
}
