// Package testutil holds helpers that tests in several packages of this
// module repeat: finding the repository root, a goroutine-safe buffer for
// logs and command output, polling until a condition holds, and
// hand-assembled WebAssembly modules.
//
// It is imported only by _test.go files. It must never import anything
// from this module (so any package's tests, abi's and wit's included, can
// use it without a cycle) and it holds no package-level state.
package testutil

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// ErrNoRepoRoot is returned by FindRepoRoot when no directory from the
// working directory up holds a go.mod.
var ErrNoRepoRoot = errors.New("no go.mod above the working directory")

// FindRepoRoot walks up from the working directory to the first directory
// holding a go.mod and returns it.
func FindRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNoRepoRoot
		}
		dir = parent
	}
}

// RepoRoot is FindRepoRoot for tests: it fails t when there is no root.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// SyncBuffer is a bytes.Buffer that is safe for one goroutine (a command,
// a logger) to write while another reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what has been written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Eventually polls cond every 5 ms for up to 30 s and fails t with
// "timed out waiting for <what>" if it never holds. The 30 s only bound a
// hang: a condition that holds returns at once, and on the CI machine
// (-race, 2 cores, packages tested in parallel) what takes milliseconds
// alone can take seconds.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}
