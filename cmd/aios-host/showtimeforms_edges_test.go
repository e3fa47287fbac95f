package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/audit"
)

// TestAuditShowRFC3339SpaceAndLowerCase: `audit show --since` took only
// Go's form of an RFC 3339 time. The forms RFC 3339 itself allows (5.6: a
// space for the "T", as `date --rfc-3339=seconds` prints; a lower-case "t"
// and "z") were refused as "neither an RFC 3339 time nor a duration".
func TestAuditShowRFC3339SpaceAndLowerCase(t *testing.T) {
	e := newEnv(t)
	w, err := audit.Open(filepath.Join(e.data, "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	early := time.Date(2026, 12, 6, 7, 0, 0, 0, time.UTC)
	late := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	w.Log(audit.Entry{Time: early, CallID: "early-call", Caller: "cli", Tool: "echo", Result: 1})
	w.Log(audit.Entry{Time: late, CallID: "late-call", Caller: "cli", Tool: "echo", Result: 1})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, since := range []string{
		"2026-12-06 08:00:00+00:00", // date --rfc-3339=seconds
		"2026-12-06 09:00:00.000+01:00",
		"2026-12-06t08:00:00z",
		"2026-12-06T08:00:00z",
		"2026-12-06t10:00:00+02:00",
	} {
		code, out, errs := e.run("", "audit", "show", "--since", since)
		if code != 0 || !strings.Contains(out, "late-call") || strings.Contains(out, "early-call") {
			t.Errorf("audit show --since %q: exit %d, out %q, err %q; want late-call only", since, code, out, firstLine(errs))
		}
		code, out, errs = e.run("", "audit", "show", "--until", since)
		if code != 0 || strings.Contains(out, "late-call") || !strings.Contains(out, "early-call") {
			t.Errorf("audit show --until %q: exit %d, out %q, err %q; want early-call only", since, code, out, firstLine(errs))
		}
	}
	// Still refused: no zone (whose local time?) and a bare date.
	for _, bad := range []string{"2026-12-06 08:00:00", "2026-12-06", "2026-12-06x08:00:00Z"} {
		if code, _, errs := e.run("", "audit", "show", "--since", bad); code != 2 || !strings.Contains(errs, bad) {
			t.Errorf("audit show --since %q: exit %d, err %q; want a usage error naming it", bad, code, firstLine(errs))
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
