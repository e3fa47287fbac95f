package space

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestOneObjectPutGetDeleteConcurrently (no defect): many goroutines
// putting, reading and deleting one object: a Get returns the object's
// bytes or ErrNotFound, never other bytes or another error; Put and
// Delete fail only with ErrNotFound (Delete of an object already gone);
// and the space's quota usage is back to nothing once the object is gone.
func TestOneObjectPutGetDeleteConcurrently(t *testing.T) {
	s, err := Open(t.TempDir(), WithMaxSpaceBytes(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789"), 100)
	id := ID(data)
	errs := make(chan error, 64)
	report := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	var wg sync.WaitGroup
	for g := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				switch (g + i) % 3 {
				case 0:
					if got, err := s.Put("one", data); err != nil || got != id {
						report(fmt.Errorf("Put: %v, %v", got, err))
					}
				case 1:
					b, err := s.Get("one", id)
					if err != nil && !errors.Is(err, ErrNotFound) {
						report(fmt.Errorf("Get: %v", err))
					} else if err == nil && !bytes.Equal(b, data) {
						report(fmt.Errorf("Get returned %d other bytes", len(b)))
					}
				case 2:
					if err := s.Delete("one", id); err != nil && !errors.Is(err, ErrNotFound) {
						report(fmt.Errorf("Delete: %v", err))
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := s.Delete("one", id); err != nil && !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	s.usageMu.Lock()
	used := s.usage["one"]
	s.usageMu.Unlock()
	if used != 0 {
		t.Errorf("the space's usage is %d bytes with no object left, want 0", used)
	}
	if ids, err := s.List("one"); err != nil || len(ids) != 0 {
		t.Errorf("List: %v, %v", ids, err)
	}
}
