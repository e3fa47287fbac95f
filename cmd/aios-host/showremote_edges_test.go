package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/audit"
)

// TestAuditShowRemoteComparesAddresses: --remote compared the text of
// the address: an IPv6 client written otherwise than Go writes it
// (2001:DB8:0::1 for 2001:db8::1, an operator copying it from a firewall
// log or a ticket) selected none of its records, and a value that is no
// address at all (--remote laptop, --remote 10.0.0.5:http) said "no
// record matches", exit 0, as for a client that never called. The
// addresses are compared as addresses, and a value that is not an IP or
// IP:port is a usage error naming it.
func TestAuditShowRemoteComparesAddresses(t *testing.T) {
	e := newEnv(t)
	w, err := audit.Open(filepath.Join(e.data, "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, en := range []audit.Entry{
		{Time: t0, CallID: "c1", Caller: "peer", Tool: "echo", Remote: "[2001:db8::1]:5000", Result: 1},
		{Time: t0, CallID: "c2", Caller: "peer", Tool: "echo", Remote: "10.0.0.5:4000", Result: 1},
		{Time: t0, CallID: "c3", Caller: "peer", Tool: "echo", Remote: "[2001:db8::1]:5001", Result: 1},
	} {
		w.Log(en)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ remote, want string }{
		{"2001:db8::1", "c1 c3"},
		{"2001:DB8:0::1", "c1 c3"},
		{"[2001:db8:0:0:0:0:0:1]", "c1 c3"},
		{"[2001:DB8::1]:5001", "c3"},
		{"10.0.0.5", "c2"},
		{"::ffff:10.0.0.5", "c2"},
		{"10.0.0.5:4000", "c2"},
		{"10.0.0.6", ""},
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
	for _, bad := range []string{"laptop", "10.0.0.5:http", "10.0.0.300"} {
		code, out, errs := e.run("", "audit", "show", "--remote", bad)
		if code != exitUsage || out != "" || !strings.Contains(errs, `--remote "`+bad+`"`) {
			t.Errorf("--remote %s: exit %d, stdout %q, stderr %q; want a usage error naming it", bad, code, out, errs)
		}
	}
}
