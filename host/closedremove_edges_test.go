package host

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// RemoveProvider after Close answered NotFound, `provider "org.test.tools"
// is not registered`, for a provider the embedder had added and never
// removed (Close had): it read as a bug of its own bookkeeping, where
// AddProvider, ReplaceProvider and Call say the host is closed. It now
// says so too: Unavailable "host is closed".
func TestRemoveProviderAfterCloseSaysClosed(t *testing.T) {
	te := newTestHost(t, nil)
	if err := te.h.Close(); err != nil {
		t.Fatal(err)
	}
	err := te.h.RemoveProvider("org.test.tools")
	if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "host is closed") {
		t.Fatalf("RemoveProvider after Close: %v, want Unavailable saying the host is closed", err)
	}
}
