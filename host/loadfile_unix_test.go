//go:build unix

package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/config"
)

// TestLoadRefusesSpecialFiles: a FIFO (which would block the loader's read
// for good), a symlink to a device (which would never end), and a file
// over limits.max_plugin_bytes are refused before any loader reads them.
func TestLoadRefusesSpecialFiles(t *testing.T) {
	te := newTestHost(t, nil)
	if err := te.h.AddLoader(panicLoader{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.boom")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	dev := filepath.Join(dir, "zero.boom")
	if err := os.Symlink("/dev/zero", dev); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.boom")
	f, err := os.Create(big)
	if err == nil {
		err = f.Truncate(config.DefaultMaxPluginBytes + 1) // sparse: no disk used
		_ = f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo: "not a regular file (a FIFO (named pipe))",
		dev:  "not a regular file (a character device)",
		big:  "the file is 268435457 bytes, above the 268435456 a plugin may have",
	} {
		done := make(chan error, 1)
		go func() { _, err := te.h.LoadFile(context.Background(), path, ProviderMeta{}); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
				t.Errorf("LoadFile(%s) = %v, want an error naming it and saying %q", path, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("LoadFile(%s) hangs", path)
		}
	}
}
