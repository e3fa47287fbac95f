package space

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestSecondPutWaitsForFirstSync: a Put of an object that another Put had
// just renamed into place, and not yet made durable (its folder not
// synced), saw the file and reported the object stored: a crash then
// lost an object its writer was told was kept. The second Put now waits
// for the first, as it does when it finds no file.
func TestSecondPutWaitsForFirstSync(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("written twice at once")
	p, _ := s.objectPath("docs", ID(data))
	blocked, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	old := syncDir
	syncDir = func(dir string) {
		if _, err := os.Stat(p); err == nil && dir == filepath.Dir(p) {
			once.Do(func() { close(blocked); <-release })
		}
		old(dir)
	}
	t.Cleanup(func() { syncDir = old })

	first := make(chan error, 1)
	go func() { _, err := s.Put("docs", data); first <- err }()
	<-blocked // the first Put renamed the object and syncs its folder
	second := make(chan error, 1)
	go func() { _, err := s.Put("docs", data); second <- err }()
	select {
	case err := <-second:
		t.Fatalf("the second Put returned (%v) before the first one made the object durable", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	for _, c := range []chan error{first, second} {
		if err := <-c; err != nil {
			t.Fatal(err)
		}
	}
}
