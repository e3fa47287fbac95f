package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpaceReadsCreateNothing: space get, list and spaces opened the store
// as put does, making DATA/spaces/.tmp first: on a read-only data folder
// (a backup, a read-only mount, another user's folder) every read failed
// with "mkdir …/spaces/.tmp: permission denied", and a mistyped --data
// left a new folder tree behind and answered "no space yet". Now the
// reads create nothing: a data folder that does not exist holds no space.
func TestSpaceReadsCreateNothing(t *testing.T) {
	e := newEnv(t)
	missing := filepath.Join(t.TempDir(), "no such data")
	id := "sha256:" + strings.Repeat("0", 64)
	for _, args := range [][]string{
		{"space", "spaces"},
		{"space", "list", "docs"},
		{"space", "get", "docs", id},
	} {
		e.bare(append(args, "--data", missing)...)
		if _, err := os.Stat(missing); err == nil {
			t.Fatalf("aios-host %s made the data folder %s", strings.Join(args, " "), missing)
		}
	}
	// An existing store whose .tmp folder is gone (as on a copy that
	// left it out) is read without making it again.
	code, out, errs := e.run("hello", "space", "put", "docs", "-")
	if code != 0 {
		t.Fatalf("space put: %d %s", code, errs)
	}
	id = strings.TrimSpace(out)
	tmp := filepath.Join(e.data, "spaces", ".tmp")
	if err := os.RemoveAll(tmp); err != nil {
		t.Fatal(err)
	}
	if code, got, errs := e.run("", "space", "get", "docs", id); code != 0 || got != "hello" {
		t.Fatalf("space get: %d %q %s", code, got, errs)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Fatalf("space get made %s again", tmp)
	}
}

// TestListMakesNoSpaceStore: list and diff, which call no tool, opened the
// Space store as call does, making DATA/spaces/.tmp: on a data folder
// they may not write (the service's, /var/lib/aios-host, read by a CI
// user while no host runs) they failed with "mkdir …/spaces: permission
// denied" before listing a tool. Now they open it for reading and make
// no spaces folder.
func TestListMakesNoSpaceStore(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"list", "--json"},
		{"diff", "analyze-complexity", "1.0.0", "1.0.0"},
	} {
		data := filepath.Join(t.TempDir(), "data")
		code, _, errs := e.bare(append(args, "--plugins", e.plugins, "--data", data)...)
		if code != 0 {
			t.Fatalf("aios-host %s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
		if _, err := os.Stat(filepath.Join(data, "spaces")); err == nil {
			t.Errorf("aios-host %s made %s", strings.Join(args, " "), filepath.Join(data, "spaces"))
		}
	}
}
