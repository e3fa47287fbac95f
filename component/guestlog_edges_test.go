package component

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
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
		GuestLog(context.Background(), log, nil, &logged, slog.LevelDebug, "a debug line")
	}
	GuestLog(context.Background(), log, nil, &logged, slog.LevelWarn, "the warning that matters")
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

// TestLinesGatedPerProvider: the per-call caps (MaxLogMessages,
// MaxGuestOutput) alone let a client calling a chatty component tool in a
// loop flood the host log, where a JS or Python provider's lines are held
// to LinesPerSecond. A provider's calls share a LineGate: the lines past
// it are dropped and counted in "component log lines suppressed".
func TestLinesGatedPerProvider(t *testing.T) {
	var out testutil.SyncBuffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	gate := NewLineGate()
	const calls, perCall = 50, 10
	start := time.Now()
	for range calls {
		logged := 0
		o := GuestOutput{Gate: gate}
		for range perCall / 2 {
			GuestLog(context.Background(), log, gate, &logged, slog.LevelInfo, "sdk line")
			o.Write(context.Background(), log, false, []byte("stdout line\n"))
		}
		o.Flush(context.Background(), log)
	}
	elapsed := time.Since(start)
	gate.b.Flush()
	s := out.String()
	shown := strings.Count(s, "msg=\"sdk line\"") + strings.Count(s, "msg=\"stdout line\"")
	suppressed := 0
	for _, m := range regexp.MustCompile(`component log lines suppressed" lines=(\d+)`).FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(m[1])
		suppressed += n
	}
	if limit := LinesPerSecond * (int(elapsed/time.Second) + 1); shown > limit {
		t.Errorf("%d lines logged in %v; want at most %d", shown, elapsed, limit)
	}
	if shown+suppressed != calls*perCall {
		t.Errorf("%d lines logged and %d reported suppressed; want %d in all:\n%.2000s", shown, suppressed, calls*perCall, s)
	}
}
