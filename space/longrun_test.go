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

// TestQuotaSeesObjectsRemovedByHand: a long-running host fills a
// space to its quota; there is no delete for tools, so the user removes
// objects by hand (or a clean-up script does). The Store counted usage
// only at the space's first write and from its own Puts and Deletes, so it
// refused every write to the space until the host restarted.
func TestQuotaSeesObjectsRemovedByHand(t *testing.T) {
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

// TestStaleTempsSweptWhileRunning: a host killed during a Put and
// restarted at once leaves a temporary file too young for Open to remove
// (another process may be writing it). Open was the only sweep, so a
// host then running for weeks kept it (up to max_object_bytes) until its
// next start; a Put sweeps again once the file is stale.
func TestStaleTempsSweptWhileRunning(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, tmpDir), 0o700); err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(dir, tmpDir, "put-123456")
	if err := os.WriteFile(left, bytes.Repeat([]byte("x"), 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	young := time.Now().Add(-10 * time.Minute)
	_ = os.Chtimes(left, young, young)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); err != nil {
		t.Fatalf("Open removed a temporary file 10 minutes old (it may be another process's Put): %v", err)
	}
	// Two hours later (the clock moved for the file and the store).
	old := time.Now().Add(-2 * time.Hour)
	_ = os.Chtimes(left, old, old)
	s.sweepMu.Lock()
	s.swept = s.swept.Add(-2 * time.Hour)
	s.sweepMu.Unlock()
	if _, err := s.Put("s", []byte("later")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); err == nil {
		t.Fatal("a temporary file of a Put that died two hours ago is still in the store of a running host")
	}
}
