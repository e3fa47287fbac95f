package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestWitEndlessFileRefused: `wit` given a file that never ends
// (/dev/zero, a pipe fed without end) read it until memory ran out, as the
// other commands' file arguments no longer are (TestEndlessInputFiles); it
// is refused naming the file and the limit, exit 1.
func TestWitEndlessFileRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	e := newEnv(t)
	done := make(chan struct{})
	var code int
	var errs string
	go func() {
		defer close(done)
		code, _, errs = e.run("", "wit", "/dev/zero")
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("wit /dev/zero still reading after 20 s")
	}
	if code != exitFail || !strings.Contains(errs, "/dev/zero is more than") || !strings.Contains(errs, "bytes") {
		t.Errorf("wit /dev/zero: %d %q", code, errs)
	}
}
