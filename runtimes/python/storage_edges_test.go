//go:build unix

package python

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	pysdk "github.com/aios-host/aios-host/sdk/python"
)

// TestSDKCacheFIFO: a file of the extracted Python SDK folder (in the
// user's cache) replaced by a FIFO made the check of the folder wait in
// open(2) for a writer forever, and the Python runtime with it at start.
// It is now taken as damaged and written again.
func TestSDKCacheFIFO(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir, err := extractSDK()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "aios_sdk", "__init__.py")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := extractSDK()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("extractSDK with a FIFO in the folder: %v", err)
		}
	case <-time.After(5 * time.Second):
		if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("extractSDK hung on a FIFO in the SDK folder")
	}
	want, _ := pysdk.Files.ReadFile("aios_sdk/__init__.py")
	if got, err := os.ReadFile(p); err != nil || string(got) != string(want) {
		t.Fatalf("__init__.py after extractSDK: %q, %v", got, err)
	}
}
