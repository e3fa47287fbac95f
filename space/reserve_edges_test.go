package space

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestReserveHoldsForConcurrentPuts: limits.min_free_bytes was checked
// against the disk's free space alone, each Put by itself, so Puts in
// flight together (tools writing at once) each saw the room the others
// were about to take: on a disk with room for one object above the
// reserve, both of two concurrent Puts passed and the disk went below it
// (the audit log's room). A Put now counts the bytes of the Puts still
// writing, and the second is refused naming the reserve.
func TestReserveHoldsForConcurrentPuts(t *testing.T) {
	// The disk, simulated: 1000 bytes free, less what the Puts wrote.
	var mu sync.Mutex
	free := int64(1000)
	oldFree, oldWrite := diskFree, writeTemp
	t.Cleanup(func() { diskFree, writeTemp = oldFree, oldWrite })
	diskFree = func(string) (int64, bool) {
		mu.Lock()
		defer mu.Unlock()
		return free, true
	}
	entered, proceed := make(chan struct{}), make(chan struct{})
	var writes atomic.Int32
	writeTemp = func(f *os.File, data []byte) error {
		if writes.Add(1) == 1 { // the first Put waits, writing
			close(entered)
			<-proceed
		}
		if err := oldWrite(f, data); err != nil {
			return err
		}
		mu.Lock()
		free -= int64(len(data))
		mu.Unlock()
		return nil
	}
	s, err := Open(t.TempDir(), WithMinFreeBytes(800))
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() {
		_, err := s.Put("docs", bytes.Repeat([]byte("a"), 150))
		first <- err
	}()
	select {
	case <-entered:
	case err := <-first:
		t.Fatalf("the first Put, which leaves 850 bytes free above a reserve of 800, did not reach its write: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the first Put never reached its write")
	}
	// The first Put is writing its 150 bytes: 1000 free on the disk now,
	// 850 once it is done. 150 more would leave 700.
	_, err = s.Put("docs", bytes.Repeat([]byte("b"), 150))
	close(proceed)
	if ferr := <-first; ferr != nil {
		t.Fatalf("the first Put: %v", ferr)
	}
	if !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "limits.min_free_bytes") || !strings.Contains(err.Error(), `space "docs"`) {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("a second Put while the first was writing: err %v; the disk has %d bytes free, below the reserve of 800", err, free)
	}
	// Done writing, the first Put's bytes are on the disk and counted once:
	// 50 bytes still fit above the reserve, 51 do not.
	if _, err := s.Put("docs", bytes.Repeat([]byte("c"), 50)); err != nil {
		t.Fatalf("50 bytes with 850 free above a reserve of 800: %v", err)
	}
	if _, err := s.Put("docs", bytes.Repeat([]byte("d"), 1)); !errors.Is(err, ErrFull) {
		t.Fatalf("1 byte with 800 free above a reserve of 800: %v", err)
	}
}
