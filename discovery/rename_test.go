package discovery

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// activeSource is the file serving provider id, or "".
func activeSource(d *Discovery, id string) string {
	a, ok := d.Adapter(id)
	if !ok {
		return ""
	}
	return a.Source
}

// callLoop calls tool until stop closes, counting failures (and keeping
// the first).
func callLoop(env *testEnv, tool string, stop <-chan struct{}) (wait func() (int64, int64, error)) {
	var calls, fails atomic.Int64
	var first error
	var once sync.Once
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
			calls.Add(1)
			if _, err := env.call(tool, 1); err != nil {
				fails.Add(1)
				once.Do(func() { first = err })
			}
			time.Sleep(time.Millisecond)
		}
	}()
	return func() (int64, int64, error) { wg.Wait(); return calls.Load(), fails.Load(), first }
}

// A file renamed in place keeps its tools served while its new name loads
// (which here takes 300 ms): not one call in between fails, and the old
// name's provider is let go once the new one serves.
func TestRenameInPlaceNoGap(t *testing.T) {
	env := newEnv(t, "debounce: 20ms\n", nil)
	from := filepath.Join(env.dir, "a.fake")
	to := filepath.Join(env.dir, "b.fake")
	writeFake(t, from, fakeSpec{ID: "org.test.ren", Version: "1.0.0", Tools: []string{"ren"}, LoadMS: 300})
	testutil.Eventually(t, "loaded", func() bool { _, err := env.call("ren", 1); return err == nil })

	stop := make(chan struct{})
	wait := callLoop(env, "ren", stop)
	time.Sleep(20 * time.Millisecond)
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "served from the new name", func() bool { return activeSource(env.d, "org.test.ren") == to })
	time.Sleep(50 * time.Millisecond)
	close(stop)
	calls, fails, first := wait()
	if fails != 0 {
		t.Fatalf("%d of %d calls failed during the rename; first: %v", fails, calls, first)
	}
	testutil.Eventually(t, "the old name's provider closed", func() bool { return len(env.load.open()) == 1 })
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
}

// A renamed file whose provider id changed with it: the new id takes the
// tools (the old id's kept registration does not refuse them), and the old
// id goes.
func TestRenameInPlaceNewID(t *testing.T) {
	env := newEnv(t, "debounce: 20ms\n", nil)
	from := filepath.Join(env.dir, "a.fake")
	writeFake(t, from, fakeSpec{ID: "org.test.old", Version: "1.0.0", Tools: []string{"ren"}})
	testutil.Eventually(t, "loaded", func() bool { _, err := env.call("ren", 1); return err == nil })
	writeFake(t, filepath.Join(env.dir, "b.fake"), fakeSpec{ID: "org.test.new", Version: "1.0.0", Tools: []string{"ren"}, LoadMS: 200})
	if err := os.Remove(from); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the new id serves", func() bool {
		return activeSource(env.d, "org.test.new") != "" && env.h.Registry().Provider("org.test.old") == nil
	})
	if _, err := env.call("ren", 1); err != nil {
		t.Fatal(err)
	}
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	testutil.Eventually(t, "the old provider closed", func() bool { return len(env.load.open()) == 1 })
}

// A deleted file whose name nothing takes over is unloaded once the other
// files loading meanwhile are done, and at the latest after orphanGrace.
func TestDeletedFileUnloadsDespiteSlowLoads(t *testing.T) {
	defer func(g time.Duration) { orphanGrace = g }(orphanGrace)
	orphanGrace = 400 * time.Millisecond
	env := newEnv(t, "debounce: 20ms\n", nil)
	gone := filepath.Join(env.dir, "gone.fake")
	writeFake(t, gone, fakeSpec{ID: "org.test.gone", Version: "1.0.0", Tools: []string{"gone"}})
	testutil.Eventually(t, "loaded", func() bool { _, err := env.call("gone", 1); return err == nil })

	// Another file that takes 3 s to load is written with the delete.
	writeFake(t, filepath.Join(env.dir, "slow.fake"), fakeSpec{ID: "org.test.slow", Version: "1.0.0", Tools: []string{"slow1"}, LoadMS: 3000})
	start := time.Now()
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "unloaded", func() bool { _, err := env.call("gone", 1); return abi.CodeOf(err) == abi.NotFound })
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("the deleted file's tool was served %v after the delete (grace %v)", took, orphanGrace)
	}
	if _, ok := env.d.Adapter("org.test.gone"); ok {
		t.Fatal("the deleted file is still listed as an adapter")
	}
	testutil.Eventually(t, "the slow file loaded", func() bool { _, err := env.call("slow1", 1); return err == nil })
	for _, p := range env.load.open() {
		if p == "org.test.gone@1.0.0" {
			t.Fatal("the deleted file's provider was not closed")
		}
	}
}

// A provider id changed in place (adapter.id edited) whose tools are the
// old id's: the new id takes the old one's place in one registry snapshot,
// so no call in between finds neither.
func TestProviderIDChangeNoGap(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "inc", "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"tool-inc"}})
		writeFile(t, filepath.Join(dir, "inc", "adapter.json"), `{"adapter": {"id": "org.test.inc", "name": "Inc", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "tool-inc", "name": "Inc", "permission_level": "low"}]}`)
	})
	reg := env.h.Registry()
	for i, id := range []string{"org.test.inc2", "org.test.inc3", "org.test.inc4"} {
		stop := make(chan struct{})
		wait := callLoop(env, "tool-inc", stop)
		time.Sleep(10 * time.Millisecond)
		writeFile(t, filepath.Join(env.dir, "inc", "adapter.json"), `{"adapter": {"id": "`+id+`", "name": "Inc", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "tool-inc", "name": "Inc", "permission_level": "low"}]}`)
		testutil.Eventually(t, "served by "+id, func() bool {
			e, err := reg.Resolve("tool-inc", "")
			return err == nil && e.Provider.Info.ID == id && len(reg.Providers()) == 1
		})
		time.Sleep(20 * time.Millisecond)
		close(stop)
		calls, fails, first := wait()
		if fails != 0 {
			t.Fatalf("change %d: %d of %d calls failed; first: %v", i, fails, calls, first)
		}
	}
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	testutil.Eventually(t, "the old ids' providers closed", func() bool { return len(env.load.open()) == 1 })
}
