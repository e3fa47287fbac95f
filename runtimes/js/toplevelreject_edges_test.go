package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestTopLevelRejectionWarned: a provider whose top-level async code
// failed (an async init, `(async () => { … })()`, a Promise.reject left
// alone) loaded without a word: the rejection tracker kept only a call's
// promises, so the failure of its initialisation was never seen, where a
// call's unhandled rejections are logged (TestUnhandledRejectionWarned)
// and node ends the process (found by p118). The load now logs a warning
// naming the file and the first rejection's error; a rejection handled
// at the top (a .catch) is not reported.
func TestTopLevelRejectionWarned(t *testing.T) {
	env := newFakeEnv()
	rt := newRuntime(t, Options{Logger: env.Logger()})
	logs := func() string {
		env.mu.Lock()
		defer env.mu.Unlock()
		l := strings.Join(env.logs, "\n")
		env.logs = nil
		return l
	}
	path := writeSource(t, "init.ts", `let config: Record<string, string> = {};
(async () => {
  await null;
  throw new Error('config server unreachable');
})();
Promise.reject(new Error('handled at the top')).catch(() => {});
aios.registerTool({ name: 'uses-config' }, () => config);
`)
	p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeTS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	l := logs()
	if !strings.Contains(l, "WARN") || !strings.Contains(l, path) || !strings.Contains(l, "config server unreachable") {
		t.Errorf("load logged %q, want a warning naming the file and the rejection", l)
	}
	if strings.Contains(l, "handled at the top") {
		t.Errorf("load logged %q: that rejection was handled", l)
	}
	// A call (a pool runtime's own run of the top-level code) is not
	// warned about again, and serves.
	fe := newFakeEnv()
	if _, err := call(t, p.(*Provider), fe, "uses-config", map[string]any{}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	// A clean file logs no warning.
	clean := writeSource(t, "clean.ts", "aios.registerTool({ name: 'c' }, () => 1);\n")
	q, err := rt.load(context.Background(), abi.Source{Path: clean}, abi.RuntimeTS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Close() })
	if l := logs(); strings.Contains(l, "rejected") {
		t.Errorf("clean load logged %q", l)
	}
}
