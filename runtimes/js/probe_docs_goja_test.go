package js

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestProbeLoadFailureNoWorkerWarning: a JS file that fails to load in a
// worker process (a misspelled tool member, say) was reported twice: the
// load error, and a warning "JS worker process ended err=signal: killed
// note=" about the worker the host itself killed after that error, which
// reads like a crash. Only the load error is reported now.
func TestProbeLoadFailureNoWorkerWarning(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	path := writeSource(t, "typo.js", `aios.registerTool({name: 'a', paramaters: {}}, () => 1);`)
	rt := newRuntime(t, Options{Isolation: IsolationProcess, Logger: logger})
	_, err := rt.load(context.Background(), abi.Source{Path: path, Logger: logger}, abi.RuntimeJS)
	if err == nil || !strings.Contains(err.Error(), "paramaters") {
		t.Fatalf("load error = %v, want one naming the misspelled member", err)
	}
	time.Sleep(100 * time.Millisecond) // died runs on the worker's wait goroutine
	if strings.Contains(logs.String(), "JS worker process ended") {
		t.Fatalf("a load failure also logged the worker the host killed:\n%s", logs.String())
	}
}
