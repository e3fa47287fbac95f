package host

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestOriginInAuditRecords: the Origin a server puts in a call's context is
// in the audit record of the call and of its nested calls, and in a Space
// read's; a call without one has no principal or session.
func TestOriginInAuditRecords(t *testing.T) {
	te := newTestHost(t, nil)
	ctx := WithOrigin(context.Background(), Origin{Principal: "token:laptop", Session: "S-1"})
	if _, err := te.h.Call(ctx, &abi.ToolCall{Caller: "alice", Tool: "nested", Params: map[string]any{"tool": "whoami"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.h.Call(ctx, &abi.ToolCall{Caller: "bob", Tool: "needs-secret"}); abi.CodeOf(err) != abi.CapabilityDenied {
		t.Fatalf("bob's needs-secret: %v", err)
	}
	if _, err := te.h.ReadSpaceAs(ctx, "alice", "source", "sha256:"); err == nil {
		t.Fatal("read of a malformed id succeeded")
	}
	if _, err := te.call("alice", "echo", map[string]any{"msg": "x"}); err != nil {
		t.Fatal(err)
	}
	if o := OriginOf(ctx); o.Principal != "token:laptop" || o.Session != "S-1" {
		t.Fatalf("OriginOf = %+v", o)
	}
	if WithOrigin(context.Background(), Origin{}) != context.Background() {
		t.Fatal("an empty Origin changed the context")
	}
	if err := te.h.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(te.audit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, m)
	}
	// whoami (nested, written first), nested, the denied call, the read, echo.
	if len(recs) != 5 {
		t.Fatalf("%d records, want 5: %v", len(recs), recs)
	}
	for i, r := range recs[:4] {
		if r["principal"] != "token:laptop" || r["session"] != "S-1" {
			t.Errorf("record %d (%s by %s): principal %v session %v, want token:laptop S-1", i+1, r["tool"], r["caller"], r["principal"], r["session"])
		}
	}
	if r := recs[4]; r["principal"] != nil || r["session"] != nil || r["tool"] != "echo" {
		t.Errorf("record of a call without origin: %v", r)
	}
}
