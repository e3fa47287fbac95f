package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataFlagNamingAFileSaysSo: --data naming a file (not a folder) was
// refused with "space: root "F/spaces": stat F/spaces: not a directory"
// (or "mkdir F: not a directory"), which reads as a missing spaces folder.
// It says --data is a file now, and what the folder holds.
func TestDataFlagNamingAFileSaysSo(t *testing.T) {
	e := newEnv(t)
	f := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.data = f
	for _, args := range [][]string{{"list"}, {"space", "spaces"}} {
		code, _, errs := e.run("", args...)
		if code == 0 || !strings.Contains(errs, "--data "+f+": is a file, not a folder") {
			t.Errorf("%v with --data a file: exit %d, %q", args, code, errs)
		}
	}
}
