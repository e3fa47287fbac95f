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
