package space

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreErrorsSayWhichPathIsWrong: with a file where a folder of the
// store should be (the fan-out folder, the space's folder, the .tmp
// folder), the store's errors said only "mkdir: not a directory" or
// "open: not a directory": the host's path was left out (the errors reach
// tools) and with it what was wrong. They name the path relative to the
// store ("mkdir docs/69: not a directory"; a temporary file as .tmp), and
// never the host's path.
func TestStoreErrorsSayWhichPathIsWrong(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("blocked")
	id := ID(data)
	hex := id[len(IDPrefix):]
	check := func(what string, err error, want string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		if strings.Contains(err.Error(), root) {
			t.Errorf("%s: the message names the host's path: %q", what, err)
		}
		if !strings.Contains(err.Error(), want+": not a directory") {
			t.Errorf("%s: %q does not say that %s is not a folder", what, err, want)
		}
	}

	// A file where the fan-out folder should be.
	fan := filepath.Join(root, "docs", hex[:2])
	if err := os.MkdirAll(filepath.Dir(fan), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fan, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.Put("docs", data)
	check("Put", err, "docs/"+hex[:2])
	_, err = s.Get("docs", id)
	check("Get", err, "docs/"+hex[:2]+"/"+hex[2:])
	check("Delete", s.Delete("docs", id), "docs/"+hex[:2]+"/"+hex[2:])

	// A file where the space's folder should be.
	if err := os.WriteFile(filepath.Join(root, "flat"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.Put("flat", data)
	check("Put into a space that is a file", err, "mkdir flat")
	_, err = s.List("flat")
	check("List of a space that is a file", err, "open flat")

	// A file where the store's .tmp folder should be.
	tmp := filepath.Join(root, tmpDir)
	if err := os.RemoveAll(tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmp, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.Put("fresh", data)
	check("Put with .tmp a file", err, "open .tmp")
}

// TestStoreRemovedWhileRunning: the store's folder removed under a
// running host (DATA/spaces cleaned to make room) made Spaces fail ("open
// (the store's folder): no such file or directory"), and with it every
// read by id alone (Internal) and an MCP client's listing of the spaces,
// while a read naming the space was NotFound. The store has no spaces
// then; a Put makes its folder again.
func TestStoreRemovedWhileRunning(t *testing.T) {
	root := filepath.Join(t.TempDir(), "spaces")
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("kept a while")
	id, err := s.Put("docs", data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if names, err := s.Spaces(); err != nil || len(names) != 0 {
		t.Fatalf("Spaces of a removed store: %q, %v; want none, no error", names, err)
	}
	if ids, err := s.List("docs"); err != nil || len(ids) != 0 {
		t.Fatalf("List of a removed store: %q, %v", ids, err)
	}
	if _, err := s.Get("docs", id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a removed store: %v, want ErrNotFound", err)
	}
	if got, err := s.Put("docs", data); err != nil || got != id {
		t.Fatalf("Put after the store was removed: %v, %v", got, err)
	}
	if names, err := s.Spaces(); err != nil || len(names) != 1 || names[0] != "docs" {
		t.Fatalf("Spaces after the Put: %q, %v", names, err)
	}
	if b, err := s.Get("docs", id); err != nil || string(b) != string(data) {
		t.Fatalf("Get after the Put: %q, %v", b, err)
	}
}
