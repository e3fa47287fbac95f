package js

import (
	"context"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestLogFloodReportArrives: the lines a flooding provider's budget
// suppressed are reported ("js log lines suppressed", lines=N), in a
// worker process as in-process: every line is either logged or counted.
// A worker's report came on its pipe a second after the flood, when no
// call was reading it: it reached the host log only at the provider's
// next call (never, if it had none), and then through the host's own
// budget, which could swallow it and report "lines=1".
func TestLogFloodReportArrives(t *testing.T) {
	const lines = 3000
	src := `aios.registerTool({name: 'spam', parameters: {type: 'object'}},
  () => { for (let i = 0; i < ` + strconv.Itoa(lines) + `; i++) console.log('spam ' + i); return 1; });`
	count := regexp.MustCompile(`js log lines suppressed.*?lines=(\d+)`)
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			var provLog testutil.SyncBuffer
			rt := newRuntime(t, Options{Isolation: iso, Logger: slog.New(slog.NewTextHandler(&provLog, nil))})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "spam.js", src)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			if _, err := callIsolated(t, p, env, "spam", map[string]any{}, 30*time.Second); err != nil {
				t.Fatal(err)
			}
			// In-process the report comes from a timer, at the end of the
			// budget's one-second window.
			var logged, suppressed int
			for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
				env.mu.Lock()
				logged = 0
				for _, l := range env.logs {
					if strings.Contains(l, "spam ") {
						logged++
					}
				}
				env.mu.Unlock()
				suppressed = 0
				for _, m := range count.FindAllStringSubmatch(provLog.String(), -1) {
					n, _ := strconv.Atoi(m[1])
					suppressed += n
				}
				if logged+suppressed == lines || time.Since(start) > 5*time.Second {
					break
				}
			}
			if logged+suppressed != lines {
				t.Fatalf("%d lines logged and %d reported suppressed, of %d; the provider's log:\n%s", logged, suppressed, lines, provLog.String())
			}
		})
	}
}
