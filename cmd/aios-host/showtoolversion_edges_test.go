package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/audit"
)

// The table's TOOL column is TOOL@VERSION; --tool with that value (copied
// from the table) selected no record, which read as no call of that
// version in the log. A pattern with an '@' (no tool name has one) is
// matched against TOOL@VERSION.
func TestAuditShowToolAtVersion(t *testing.T) {
	e := newEnv(t)
	w, err := audit.Open(filepath.Join(e.data, "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, en := range []audit.Entry{
		{Time: t0, CallID: "c1", Caller: "cli", Tool: "echo", Version: "1.0.0", Result: 1},
		{Time: t0, CallID: "c2", Caller: "cli", Tool: "echo", Version: "2.1.0", Result: 1},
		{Time: t0, CallID: "c3", Caller: "cli", Tool: "echo", Outcome: "NotFound", Error: "no tool"},
		{Time: t0, CallID: "c4", Caller: "cli", Tool: "echoes", Version: "1.0.0", Result: 1},
	} {
		w.Log(en)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, want string }{
		{"echo", "c1 c2 c3"},
		{"echo@1.0.0", "c1"},
		{"echo@2.*", "c2"},
		{"echo*@1.0.0", "c1 c4"},
		{"*@*", "c1 c2 c4"},
	} {
		code, out, errs := e.run("", "audit", "show", "--tool", tc.tool)
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			ids = append(ids, strings.Fields(l)[7])
		}
		if code != 0 || strings.Join(ids, " ") != tc.want {
			t.Errorf("--tool %s: %d, calls %q (%s), want %q", tc.tool, code, ids, errs, tc.want)
		}
	}
}
