package space

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFirstCountLetsOtherSpacesWrite: the first Put of a space under a
// quota counts the space's bytes from the disk, and it walked the space
// holding the store's usage lock: after a start, the first write to a
// space of a million objects made every Put of every space wait for the
// walk (seconds), as the recount did before it was made without the lock.
// The count is made without it: a Put of another space during it stores
// its object, and a second Put of the counted space waits for the count
// and is counted with it.
func TestFirstCountLetsOtherSpacesWrite(t *testing.T) {
	s, err := Open(t.TempDir(), WithMaxSpaceBytes(100))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put("big", bytes.Repeat([]byte("a"), 60)); err != nil {
		t.Fatal(err)
	}
	// A new Store (a restart): its first Put of "big" counts it.
	if s, err = Open(s.Root(), WithMaxSpaceBytes(100)); err != nil {
		t.Fatal(err)
	}
	count := countSpace
	t.Cleanup(func() { countSpace = count })
	var counted, other atomic.Int32
	countSpace = func(st *Store, space string) (int64, error) {
		if space == "big" && counted.Add(1) == 1 {
			done := make(chan error, 1)
			go func() {
				_, err := st.Put("small", []byte("during the count of big"))
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("a Put of another space during the count: %v", err)
				}
				other.Add(1)
			case <-time.After(30 * time.Second):
				t.Error("a Put of another space waited for the count of big (30 s)")
			}
		}
		return count(st, space)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Put("big", bytes.Repeat([]byte{byte('b' + i)}, 30))
		}()
	}
	wg.Wait()
	if counted.Load() == 0 || other.Load() != 1 {
		t.Fatalf("the first Put of big after the start: counted %d times (countSpace), the Put of another space during it done %d times", counted.Load(), other.Load())
	}
	// 60 bytes stored and two Puts of 30: one fits, the other passes
	// the quota of 100 (the count saw the 60).
	if full := errors.Is(errs[0], ErrFull) != errors.Is(errs[1], ErrFull); !full || (errs[0] != nil && !errors.Is(errs[0], ErrFull)) || (errs[1] != nil && !errors.Is(errs[1], ErrFull)) {
		t.Fatalf("two 30-byte Puts into 60 of 100 bytes: %v, %v; want one stored, one ErrFull", errs[0], errs[1])
	}
	if used, err := s.spaceBytes("big"); err != nil || used != 90 {
		t.Fatalf("big holds %d bytes (%v), want 90", used, err)
	}
}
