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

// TestQuotaHoldsWhenPutFinishesDuringRecount: the recount of a space that
// a Put would take past its quota walks the disk without the usage lock,
// and a Put of the same space that finished during the walk, in a folder
// the walk had passed, was counted by neither the walk nor the Puts in
// flight: the space passed its quota (45 + 60 bytes stored under a quota
// of 100). A Put that finishes during a recount is counted with it.
func TestQuotaHoldsWhenPutFinishesDuringRecount(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, WithMaxSpaceBytes(100))
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Put("s", bytes.Repeat([]byte("a"), 50))
	if err != nil {
		t.Fatal(err)
	}
	// Removed by hand: the Store still counts its 50 bytes.
	hex := strings.TrimPrefix(a, IDPrefix)
	if err := os.Remove(filepath.Join(dir, "s", hex[:2], hex[2:])); err != nil {
		t.Fatal(err)
	}
	time.Sleep(recountEvery + 100*time.Millisecond) // a recount is due
	// The walk of the recount ends before another Put of the space
	// stores its object, which the walk therefore does not see.
	var during error
	count := countSpace
	t.Cleanup(func() { countSpace = count })
	countSpace = func(s *Store, space string) (int64, error) {
		n, err := count(s, space)
		countSpace = count
		_, during = s.Put(space, bytes.Repeat([]byte("c"), 45))
		return n, err
	}
	_, err = s.Put("s", bytes.Repeat([]byte("b"), 60))
	if during != nil {
		t.Fatalf("the 45-byte Put during the recount: %v", during)
	}
	if !errors.Is(err, ErrFull) {
		t.Errorf("a 60-byte Put with 45 of 100 bytes stored: %v; want ErrFull", err)
	}
	if used, err := s.spaceBytes("s"); err != nil || used > 100 {
		t.Errorf("the space holds %d bytes (%v), over its quota of 100", used, err)
	}
}
