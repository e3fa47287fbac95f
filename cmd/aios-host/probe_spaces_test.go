package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestProbeSpacePutBigFile: `space put` of a file over
// limits.max_object_bytes (a 4 GB disk image by mistake) read the
// limit's worth of it into memory (256 MiB, grown by doubling: 600 MB of
// memory and seconds) before refusing it; a file within the limit took
// about twice its size. A regular file's size is looked at first: one
// over the limit is refused without being read, and one within it is
// read into a buffer of its size.
func TestProbeSpacePutBigFile(t *testing.T) {
	const limit = 32 << 20
	dir := t.TempDir()
	over := filepath.Join(dir, "over.img")
	if err := os.WriteFile(over, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(over, 4<<30); err != nil { // sparse
		t.Fatal(err)
	}
	c := &cli{}
	var err error
	if n := allocated(func() { _, err = c.readObject(over, limit) }); n > 4<<20 {
		t.Errorf("refusing a file over the limit allocated %d bytes", n)
	}
	if err == nil || !strings.Contains(err.Error(), over) || !strings.Contains(err.Error(), "limits.max_object_bytes") {
		t.Errorf("a file over the limit: %v, want it named with limits.max_object_bytes", err)
	}
	within := filepath.Join(dir, "within.img")
	if err := os.WriteFile(within, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(within, limit); err != nil {
		t.Fatal(err)
	}
	var data []byte
	if n := allocated(func() { data, err = c.readObject(within, limit) }); err != nil || len(data) != limit || n > limit+limit/4 {
		t.Errorf("a file of the limit's size: %d bytes, %v; allocated %d bytes", len(data), err, n)
	}
	// Standard input redirected from a file is a file too.
	f, err := os.Open(over)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c.stdin = f
	if n := allocated(func() { _, err = c.readObject("-", limit) }); n > 4<<20 || err == nil || !strings.Contains(err.Error(), "standard input") {
		t.Errorf("standard input over the limit: %v; allocated %d bytes", err, n)
	}
}
