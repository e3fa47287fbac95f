package space

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// A FIFO at an object's path (a damaged or tampered store) made Get block
// in open(2) for good: the tool call that read the object hung, and its
// goroutine with it, past every deadline. Put already stats first.
func TestGetOfFIFODoesNotHang(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	id := ID([]byte("fifo"))
	p, _ := s.objectPath("docs", id)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	testutil.Mkfifo(t, p)
	done := make(chan error, 1)
	go func() {
		_, err := s.Get("docs", id)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Get of a FIFO = %v, want ErrCorrupt", err)
		}
	case <-time.After(3 * time.Second):
		// Unblock the goroutine so the test binary can end.
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("Get of a FIFO blocked")
	}
}

// objectsWithFan returns n distinct contents whose ids share the fan-out
// directory fan (the first two hex digits).
func objectsWithFan(fan string, n int) [][]byte {
	var out [][]byte
	for i := 0; len(out) < n; i++ {
		b := []byte(fmt.Sprintf("object %d", i))
		if ID(b)[len(IDPrefix):len(IDPrefix)+2] == fan {
			out = append(out, b)
		}
	}
	return out
}

// Delete removes the fan-out directory it empties; a Put into that
// directory between its MkdirAll and its rename then failed ("store
// object: … no such file or directory"), though nothing was wrong.
func TestPutRacingDeleteInSameFan(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	objs := objectsWithFan("ab", 2)
	a, b := objs[0], objs[1]
	idB := ID(b)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // put and delete b, emptying the fan directory over and over
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.Put("docs", b); err != nil {
				t.Errorf("Put b: %v", err)
				return
			}
			_ = s.Delete("docs", idB)
		}
	}()
	idA := ID(a)
	for i := 0; i < 300 && !t.Failed(); i++ {
		if _, err := s.Put("docs", a); err != nil {
			t.Errorf("Put a (round %d): %v", i, err)
			break
		}
		if err := s.Delete("docs", idA); err != nil {
			t.Errorf("Delete a (round %d): %v", i, err)
			break
		}
	}
	close(stop)
	wg.Wait()
}

// List reads each fan-out directory it found; a Delete that emptied one
// removes it meanwhile, and List failed ("list: … no such file or
// directory") instead of listing the objects that are there.
func TestListRacingDelete(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	keep, _ := s.Put("docs", []byte("kept"))
	b := objectsWithFan("cd", 1)[0]
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			id, _ := s.Put("docs", b)
			_ = s.Delete("docs", id)
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	for i := 0; i < 2000; i++ {
		ids, err := s.List("docs")
		if err != nil {
			t.Fatalf("List (round %d): %v", i, err)
		}
		if !slices.Contains(ids, keep) {
			t.Fatalf("List lost %s: %v", keep, ids)
		}
	}
}
