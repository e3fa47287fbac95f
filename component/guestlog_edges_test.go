package component

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestGuestLogFilteredNotCounted: aios:sdk/log messages at a level the
// host's log filters out are never shown, so they must not spend the
// call's budget of MaxLogMessages: a component that logged 1,000 debug
// lines under the default info level had its one warning after them
// dropped (and a "guest log capped" warning logged instead), where a JS,
// WASM or Python tool's warning is logged (TestFilteredLevelNotCounted,
// TestFilteredLevelNotCharged).
func TestGuestLogFilteredNotCounted(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	logged := 0
	for range MaxLogMessages + 10 {
		GuestLog(context.Background(), log, &logged, slog.LevelDebug, "a debug line")
	}
	GuestLog(context.Background(), log, &logged, slog.LevelWarn, "the warning that matters")
	s := out.String()
	if !strings.Contains(s, "the warning that matters") {
		t.Errorf("the warning after %d filtered debug lines was dropped; the log: %q", MaxLogMessages+10, s)
	}
	if strings.Contains(s, "guest log capped") {
		t.Errorf("filtered debug lines were counted against the cap: %q", s)
	}
}

// TestGuestOutputFilteredNotCharged: a component's stdout lines (logged at
// info) under a host log level of warn are never shown, so they must not
// spend the call's MaxGuestOutput bytes: 64 KiB of stdout used them up and
// the stderr warning after it was dropped ("guest output capped" logged
// instead), where a core WASM module's is logged
// (TestFilteredLevelNotCharged in runtimes/wasm).
func TestGuestOutputFilteredNotCharged(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var o GuestOutput
	line := []byte(strings.Repeat("x", 1023) + "\n")
	for range MaxGuestOutput/len(line) + 8 {
		o.Write(context.Background(), log, false, line)
	}
	o.Write(context.Background(), log, true, []byte("the warning that matters\n"))
	o.Flush(context.Background(), log)
	s := out.String()
	if !strings.Contains(s, "the warning that matters") {
		t.Errorf("the stderr line after %d KiB of filtered stdout was dropped; the log: %q", MaxGuestOutput>>10+8, s)
	}
	if strings.Contains(s, "guest output capped") {
		t.Errorf("filtered stdout was charged against the cap: %q", s)
	}
}
