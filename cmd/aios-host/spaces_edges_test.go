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

// TestSpacePutBigFile: `space put` of a file over
// limits.max_object_bytes (a 4 GB disk image by mistake) read the
// limit's worth of it into memory (256 MiB, grown by doubling: 600 MB of
// memory and seconds) before refusing it; a file within the limit took
// about twice its size. A regular file's size is looked at first: one
// over the limit is refused without being read, and one within it is
// read into a buffer of its size.
func TestSpacePutBigFile(t *testing.T) {
	const limit = 32 << 20
	dir := t.TempDir()
	over := filepath.Join(dir, "over.img")
	if err := os.WriteFile(over, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(over, 2*limit); err != nil { // sparse
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

// TestSpaceGetNamesWhereTheObjectIs: a tool's result gives an
// ObjectId, not its space (image-resize writes "to the space the input
// came from", the first readable one holding it), and `space get` in
// another space said only "object not found": the operator, who may read
// every space, had to look in each. The error names the spaces holding
// it; an id in none says so plainly.
func TestSpaceGetNamesWhereTheObjectIs(t *testing.T) {
	e := newEnv(t)
	code, out, errs := e.run("thumbnail bytes", "space", "put", "thumbs", "-")
	if code != exitOK {
		t.Fatalf("put: %d %q", code, errs)
	}
	id := strings.TrimSpace(out)
	code, _, errs = e.run("", "space", "get", "images", id)
	if code != exitFail || !strings.Contains(errs, `space "images"`) || !strings.Contains(errs, `it is in space "thumbs"`) {
		t.Errorf("get from the wrong space: %d %q, want exit 1 naming space thumbs", code, errs)
	}
	code, _, errs = e.run("", "space", "get", "images", "sha256:"+strings.Repeat("0", 64))
	if code != exitFail || strings.Contains(errs, "it is in") || !strings.Contains(errs, "object not found") {
		t.Errorf("get of an id in no space: %d %q", code, errs)
	}
}

// TestSpaceListOfNoSuchSpace: `space list imgaes` (a typo) printed
// nothing and exited 0, as for a space with no objects: nothing told the
// user the space does not exist. It still exits 0 with no ids (a space
// is made by its first object), and says on standard error that there is
// no such space, with the one meant.
func TestSpaceListOfNoSuchSpace(t *testing.T) {
	e := newEnv(t)
	if code, _, errs := e.run("x", "space", "put", "images", "-"); code != exitOK {
		t.Fatalf("put: %d %q", code, errs)
	}
	code, out, errs := e.run("", "space", "list", "imgaes")
	if code != exitOK || out != "" || !strings.Contains(errs, `no space "imgaes"`) || !strings.Contains(errs, `did you mean "images"?`) {
		t.Errorf("list of a misspelt space: %d %q %q", code, out, errs)
	}
	code, out, errs = e.run("", "space", "list", "images")
	if code != exitOK || strings.Count(out, "sha256:") != 1 || errs != "" {
		t.Errorf("list of a space: %d %q %q", code, out, errs)
	}
}
