package wasm

import (
	"strings"
	"testing"
	"time"
)

// TestTinyDeadlineGranularityRefused: runtimes.wasm.deadline_granularity
// is the period of the watchdog's timer while a call runs (and of the
// wasmtime engine's epoch). A tiny one (1ns, or 5us written for 5ms) was
// taken: the timer fired back to back, the watchdog taking a core from
// the guests for as long as any call ran. Below 1ms is now refused
// naming the key (the CLI adds the file and line); 1ms is taken.
func TestTinyDeadlineGranularityRefused(t *testing.T) {
	for _, d := range []time.Duration{time.Nanosecond, 5 * time.Microsecond, 999 * time.Microsecond} {
		_, err := Config{DeadlineGranularity: d}.withDefaults()
		want := "runtimes.wasm.deadline_granularity: " + d.String() + " is below 1ms"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: withDefaults = %v; want %q…", d, err, want)
		}
	}
	if c, err := (Config{DeadlineGranularity: time.Millisecond}).withDefaults(); err != nil || c.DeadlineGranularity != time.Millisecond {
		t.Errorf("1ms: %v, %v", c.DeadlineGranularity, err)
	}
}
