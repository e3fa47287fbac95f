//go:build unix

package js

import (
	"fmt"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestWorkerEndedNamesPid: "JS worker process ended" named no process
// (several workers of one file, and an operator holding a pid from ps)
// and said note="" when the worker left no last words. It names the pid,
// and the note only when there is one.
func TestWorkerEndedNamesPid(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	p := loadIsolated(t, Options{Logger: slog.New(slog.NewTextHandler(logs, nil))}, `
aios.registerTool({name: 'noop', description: 'does nothing'}, () => 1);
`)
	pid := p.PID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); !strings.Contains(logs.String(), "JS worker process ended"); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			t.Fatalf("no warning of the killed worker:\n%s", logs.String())
		}
	}
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "JS worker process ended") {
			line = l
		}
	}
	if !strings.Contains(line, fmt.Sprintf("pid=%d", pid)) || strings.Contains(line, `note=""`) {
		t.Fatalf("%s; want pid=%d and no empty note", line, pid)
	}
}
