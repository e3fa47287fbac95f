package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestKeyFileFIFORefused: a discovery.keys jwks file that is a FIFO
// (nothing writing to it) is refused at once, naming it; before, reading
// it waited for a writer forever and the host hung at start. A file far
// larger than a key set is refused without being read whole.
func TestKeyFileFIFORefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "keys.json")
	testutil.Mkfifo(t, fifo)
	done := make(chan error, 1)
	go func() {
		_, err := LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWKS: fifo}}, "", nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("FIFO key file: %v; want an error naming it, not a regular file", err)
		}
	case <-time.After(3 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("FIFO key file: still reading after 3 s")
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, maxJWKSBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKeyConfigs([]KeyConfig{{Trust: "Verified", JWKS: big}}, "", nil); err == nil || !strings.Contains(err.Error(), big) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized key file: %v; want an error naming it, larger than the limit", err)
	}
}
