package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestWorkerProcessAbandonGrace: in a worker process an interrupted
// runtime gets the same grace to stop as in the host. It had none: the
// worker served from this package's init, before the init that set the
// grace had run, so a loop stopped at its deadline was abandoned at the
// next watchdog tick, "the runtime did not stop within 0s". Each turn of
// the loop below is one long native step (tens of ms) that an interrupt
// waits for: with no grace most calls are abandoned; with the grace none
// is unless the machine is loaded, and then the message names the grace.
func TestWorkerProcessAbandonGrace(t *testing.T) {
	p := loadIsolated(t, Options{}, `aios.registerTool({name: 'slow', description: 'long native steps'}, () => {
  for (;;) { 'a'.repeat(3e7).indexOf('b'); }
});`)
	want := "did not stop within " + defaultAbandonGrace.String()
	for i := range 5 {
		_, err := callIsolated(t, p, newFakeEnv(), "slow", nil, 200*time.Millisecond)
		te := wantCode(t, err, abi.Timeout)
		if strings.Contains(te.Message, "abandoned") && !strings.Contains(te.Message, want) {
			t.Fatalf("call %d: %q: the worker's grace is not %v", i, te.Message, defaultAbandonGrace)
		}
	}
}
