package space

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProbeQuotaSeesObjectsRemovedByHand: a long-running host fills a
// space to its quota; there is no delete for tools, so the user removes
// objects by hand (or a clean-up script does). The Store counted usage
// only at the space's first write and from its own Puts and Deletes, so it
// refused every write to the space until the host restarted.
func TestProbeQuotaSeesObjectsRemovedByHand(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, WithMaxSpaceBytes(1000))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range "abc" {
		id, err := s.Put("s", bytes.Repeat([]byte{byte(c)}, 300))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if _, err := s.Put("s", bytes.Repeat([]byte("d"), 300)); !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "limits.max_space_bytes") {
		t.Fatalf("a Put past the quota: %v", err)
	}
	// Removed by hand, not through s.
	for _, id := range ids[:2] {
		hex := strings.TrimPrefix(id, IDPrefix)
		if err := os.Remove(filepath.Join(dir, "s", hex[:2], hex[2:])); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(recountEvery + 100*time.Millisecond)
	if _, err := s.Put("s", bytes.Repeat([]byte("d"), 300)); err != nil {
		t.Fatalf("600 bytes were removed from the full space by hand, and a 300-byte Put is still refused: %v", err)
	}
	// The count stays right afterwards: 600 used, 400 left.
	if _, err := s.Put("s", bytes.Repeat([]byte("e"), 500)); !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "(600 used") {
		t.Fatalf("a Put past the quota after the recount: %v", err)
	}
	if _, err := s.Put("s", bytes.Repeat([]byte("e"), 400)); err != nil {
		t.Fatalf("a Put filling the quota exactly: %v", err)
	}
}
