package discovery

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestToolMovedBetweenFilesServed: a file whose registration is refused
// because another provider holds one of its tools was loaded again only
// when it changed itself. So a tool moved from one plugin file to another
// by a deploy writing the new file first (refused: the old file still
// held the tool) and the old one next (without the tool) was served by
// neither until a restart, and a file refused beside the holder of its
// tool stayed unloaded when that holder was deleted. The registry now
// follows the disk: when the holder's tools change or go, the refused
// file is loaded again.
func TestToolMovedBetweenFilesServed(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"shared"}})
		writeFake(t, filepath.Join(dir, "b.fake"), fakeSpec{ID: "org.test.b", Version: "1.0.0", Tools: []string{"b-own", "shared"}})
		writeFake(t, filepath.Join(dir, "c.fake"), fakeSpec{ID: "org.test.c", Version: "1.0.0", Tools: []string{"c-own", "moving"}})
	})
	b := filepath.Join(env.dir, "b.fake")
	if env.d.Errors()[b] == "" || len(toolNames(env, "org.test.b")) != 0 {
		t.Fatalf("b.fake loaded beside a.fake, which holds its tool: errors %v", env.d.Errors())
	}
	// The holder deleted: the refused file loads.
	if err := os.Remove(filepath.Join(env.dir, "a.fake")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "b.fake loaded once a.fake went", func() bool {
		return slices.Equal(toolNames(env, "org.test.b"), []string{"b-own", "shared"})
	})
	// A tool moved from c.fake to d.fake, d.fake written first.
	d := filepath.Join(env.dir, "d.fake")
	writeFake(t, d, fakeSpec{ID: "org.test.d", Version: "1.0.0", Tools: []string{"d-own", "moving"}})
	testutil.Eventually(t, "d.fake refused while c.fake holds moving", func() bool { return env.d.Errors()[d] != "" })
	writeFake(t, filepath.Join(env.dir, "c.fake"), fakeSpec{ID: "org.test.c", Version: "1.1.0", Tools: []string{"c-own"}})
	testutil.Eventually(t, "d.fake loaded once c.fake let moving go", func() bool {
		return slices.Equal(toolNames(env, "org.test.d"), []string{"d-own", "moving"}) &&
			slices.Equal(toolNames(env, "org.test.c"), []string{"c-own"})
	})
	if v, err := env.call("moving", 7); err != nil || fmt.Sprint(v["value"]) != "7" {
		t.Errorf("moving after the move: %v, %v", v, err)
	}
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Errorf("errors left: %v", errs)
	}
}

// TestRefusedFileWaitsWhileToolHeld: a file refused for a tool version
// another provider holds is not loaded again at each reload of that
// provider that keeps the tool version (each load would fail the same,
// and log it again: a plugin under development reloads often); it is once
// the tool version goes.
func TestRefusedFileWaitsWhileToolHeld(t *testing.T) {
	var bReads atomic.Int64
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"shared"}})
		writeFake(t, filepath.Join(dir, "b.fake"), fakeSpec{ID: "org.test.b", Version: "1.0.0", Tools: []string{"b-own", "shared"}})
	})
	count := func(path string) {
		if filepath.Base(path) == "b.fake" {
			bReads.Add(1)
		}
	}
	env.load.beforeRead.Store(&count)
	for i := 1; i <= 5; i++ {
		more := fmt.Sprint("a-more", i)
		writeFake(t, filepath.Join(env.dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{more, "shared"}})
		testutil.Eventually(t, "a.fake reloaded", func() bool { return slices.Equal(toolNames(env, "org.test.a"), []string{more, "shared"}) })
	}
	// Let a retry scheduled by the last reload run, were there one.
	writeFake(t, filepath.Join(env.dir, "c.fake"), fakeSpec{ID: "org.test.c", Version: "1.0.0", Tools: []string{"c"}})
	testutil.Eventually(t, "c.fake loaded", func() bool { return len(toolNames(env, "org.test.c")) == 1 })
	if n := bReads.Load(); n != 0 {
		t.Errorf("b.fake loaded again %d times while a.fake kept holding shared@1.0.0", n)
	}
	writeFake(t, filepath.Join(env.dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a-own"}})
	testutil.Eventually(t, "b.fake loaded once shared@1.0.0 was free", func() bool {
		return slices.Equal(toolNames(env, "org.test.b"), []string{"b-own", "shared"})
	})
}
