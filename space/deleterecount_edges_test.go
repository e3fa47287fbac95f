package space

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDeleteDuringRecountKeepsQuota: Delete removed the object's file and
// then, without any lock between, took its size off the space's usage;
// a recount of the space (a Put that would pass the quota) that ran in
// between walked the disk without the file and set the usage from it, and
// the Delete then took the size off a second time: the usage fell below
// what the space holds and the space took objects past its quota (60 +
// 40 + 30 bytes under a quota of 100; a stress of concurrent Puts and
// Deletes passed it by some 5%). A Delete whose space was counted from the
// disk after it began gives nothing back: the count has seen it.
func TestDeleteDuringRecountKeepsQuota(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root, WithMaxSpaceBytes(100))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put("q", bytes.Repeat([]byte("a"), 60)); err != nil {
		t.Fatal(err)
	}
	b, err := s.Put("q", bytes.Repeat([]byte("b"), 30))
	if err != nil {
		t.Fatal(err)
	}
	removed, proceed := make(chan struct{}), make(chan struct{})
	defer func(old func(string) error) { removeObject = old }(removeObject)
	removeObject = func(p string) error {
		err := os.Remove(p)
		close(removed)
		<-proceed
		return err
	}
	deleted := make(chan error, 1)
	go func() { deleted <- s.Delete("q", b) }()
	select {
	case <-removed:
	case <-time.After(time.Minute):
		t.Fatal("Delete did not remove the object in a minute")
	}
	// The recount may run now (it runs at most once a second).
	s.usageMu.Lock()
	s.recountAt["q"] = time.Time{}
	s.usageMu.Unlock()
	// 90 used by the count: a recount, which finds 60.
	if _, err := s.Put("q", bytes.Repeat([]byte("c"), 40)); err != nil {
		t.Fatalf("60 + 40 bytes under a quota of 100, 30 deleted: %v", err)
	}
	close(proceed)
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	removeObject = os.Remove
	if _, err := s.Put("q", bytes.Repeat([]byte("d"), 30)); !errors.Is(err, ErrFull) {
		t.Errorf("60 + 40 + 30 bytes under a quota of 100: %v, want ErrFull", err)
	}
	var total int64
	_ = filepath.WalkDir(filepath.Join(root, "q"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	if total > 100 {
		t.Errorf("space q holds %d bytes under a quota of 100", total)
	}
}
