package host

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestSpaceReadBadNameIsInvalid: ctx.spaces.read with a malformed
// space name ("Source", "source/../secret") answered CapabilityDenied
// "caller lacks ReadSpace(Source)", as if a grant were missing, where a
// write of the same name says what is wrong with it (InvalidParams).
func TestSpaceReadBadNameIsInvalid(t *testing.T) {
	te := newTestHost(t, nil)
	id := "sha256:" + strings.Repeat("a", 64)
	for _, name := range []string{"Source", "source/../secret", "../secret", "source\x00"} {
		_, err := te.call("alice", "read", map[string]any{"space": name, "id": id})
		if abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), "space name") {
			t.Errorf("read from %q: %v; want InvalidParams about the space name", name, err)
		}
		_, err = te.call("alice", "write", map[string]any{"space": name, "data": "x"})
		if abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), "space name") {
			t.Errorf("write to %q: %v; want InvalidParams about the space name", name, err)
		}
	}
	// A well-formed name alice lacks is still CapabilityDenied.
	if _, err := te.call("alice", "read", map[string]any{"space": "other", "id": id}); abi.CodeOf(err) != abi.CapabilityDenied {
		t.Fatalf("read from other: %v", err)
	}
}
