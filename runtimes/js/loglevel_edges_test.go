package js

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// lockedBuffer is a bytes.Buffer a logger may write from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestFilteredLevelNotCounted: with the host's log level at warn, a
// provider's console.log and console.debug lines are never shown, yet they
// spent its budget of log lines a second: a provider that logged 150 info
// lines had the warning after them dropped, and "js log lines suppressed"
// counted lines nobody would have seen. Lines the level filters out cost
// nothing.
func TestFilteredLevelNotCounted(t *testing.T) {
	var out lockedBuffer
	logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rt := newRuntime(t, Options{Logger: logger, Isolation: IsolationInProcess})
	p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "lv.js", `aios.provider({ id: 'org.test.lv' });
for (let i = 0; i < 150; i++) { console.log('info', i); console.debug('debug', i); }
console.warn('the warning');
aios.registerTool({ name: 'lv', parameters: {} }, () => 1);
`)}, abi.RuntimeJS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	got := out.String()
	if !strings.Contains(got, "the warning") {
		t.Fatalf("a console.warn after 300 info and debug lines at level warn: not logged; log: %q", got)
	}
	if strings.Contains(got, "suppressed") {
		t.Fatalf("lines the level filters out were reported suppressed: %q", got)
	}
}
