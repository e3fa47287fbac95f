package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/audit"
)

// A link-local IPv6 peer's address has a zone ("[fe80::1%eth0]:4000", as
// Go's HTTP server gives it). It was read as fe80::1 in the zone
// "eth0]:4000", so neither --remote fe80::1 nor fe80::1%eth0 selected it.
func TestAuditShowRemoteWithZone(t *testing.T) {
	e := newEnv(t)
	w, err := audit.Open(filepath.Join(e.data, "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, en := range []audit.Entry{
		{Time: t0, CallID: "c1", Caller: "peer", Tool: "echo", Remote: "[fe80::1%eth0]:4000", Result: 1},
		{Time: t0, CallID: "c2", Caller: "peer", Tool: "echo", Remote: "[fe80::1%eth1]:4001", Result: 1},
		{Time: t0, CallID: "c3", Caller: "peer", Tool: "echo", Remote: "[fe80::2%eth0]:4000", Result: 1},
	} {
		w.Log(en)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ remote, want string }{
		{"fe80::1", "c1 c2"},
		{"fe80::1%eth0", "c1"},
		{"[fe80::1%eth0]", "c1"},
		{"[fe80::1%eth0]:4000", "c1"},
		{"[fe80::1%eth0]:4001", ""},
		{"[fe80::1]:4001", "c2"},
		{"fe80::2", "c3"},
	} {
		code, out, errs := e.run("", "audit", "show", "--remote", tc.remote)
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			ids = append(ids, strings.Fields(l)[7])
		}
		if code != 0 || strings.Join(ids, " ") != tc.want {
			t.Errorf("--remote %s: %d, calls %q (%s), want %q", tc.remote, code, ids, errs, tc.want)
		}
	}
	code, out, errs := e.run("", "audit", "show", "--remote", "[fe80::1%eth0]:http")
	if code != exitUsage || out != "" || !strings.Contains(errs, `--remote "[fe80::1%eth0]:http"`) {
		t.Errorf("--remote [fe80::1%%eth0]:http: exit %d, stdout %q, stderr %q; want a usage error naming it", code, out, errs)
	}
}
