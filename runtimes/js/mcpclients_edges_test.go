package js

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestIsolatedConsoleAtLoad: a provider run in a worker process (an
// Untrusted plugin, as a file dropped into the plugin folder of `aios-host
// mcp`) that logs while it loads — console.log at the top of the file —
// was not loaded: "the JS worker process answered the bundle with a "log"
// message" (the handshake took the log line for the answer to the bundle).
// The in-process runtime loads it. The line goes to the host log and the
// load goes on.
func TestIsolatedConsoleAtLoad(t *testing.T) {
	var logs testutil.SyncBuffer
	p := loadIsolated(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, `
console.log('loading the noisy provider');
aios.registerTool({name: 'noisy', description: 'n', parameters: {type: 'object'}}, () => 'ok');
`)
	v, err := callIsolated(t, p, nil, "noisy", map[string]any{}, 10e9)
	if err != nil || v != "ok" {
		t.Fatalf("noisy = %v, %v", v, err)
	}
	if !strings.Contains(logs.String(), "loading the noisy provider") {
		t.Errorf("the load-time log line is not in the host log: %s", logs.String())
	}
}
