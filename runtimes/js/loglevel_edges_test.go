package js

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

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

// TestLongLineCutKeepsWholeCharacters: a console line past maxLogLine was
// cut at byte maxLogLine wherever it fell, so a character of several bytes
// across the cut left invalid UTF-8 in the log (U+FFFD, or "\xc3" in the
// text log), a character the provider never wrote. The cut falls before
// the character it would split, as Python's.
func TestLongLineCutKeepsWholeCharacters(t *testing.T) {
	msg := "a" + strings.Repeat("é", maxLogLine)
	got, ok := (*logGate)(nil).line(msg)
	if !ok {
		t.Fatal("a nil gate refused a line")
	}
	head, _, _ := strings.Cut(got, " … (")
	if !utf8.ValidString(got) || len(head) > maxLogLine || !strings.HasSuffix(head, "é") {
		t.Fatalf("a line of %d bytes cut as %q…%q (valid UTF-8: %v); want whole characters, at most %d bytes", len(msg), got[:8], got[max(0, len(got)-40):], utf8.ValidString(got), maxLogLine)
	}
	if want := fmt.Sprintf("(%d more bytes cut)", len(msg)-len(head)); !strings.HasSuffix(got, want) {
		t.Fatalf("cut line ends %q; want %q", got[max(0, len(got)-40):], want)
	}
}
