package host

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
)

// A client names the tool (a call that finds none is recorded with the
// name it gave) and the parent_id of tools/call: a 2 MiB name made a
// record longer than audit verify reads, and the log failed verify from
// that record on.
func TestProbeClientStringsKeepAuditVerifiable(t *testing.T) {
	te := newTestHost(t, nil)
	huge := strings.Repeat("n", 2<<20)
	if _, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: huge}); abi.CodeOf(err) != abi.NotFound {
		t.Fatalf("call of a 2 MiB tool name: %v", err)
	}
	if _, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "echo", ParentID: "client:" + huge, Params: map[string]any{"msg": "x"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.call("alice", "echo", map[string]any{"msg": "x"}); err != nil {
		t.Fatal(err)
	}
	if err := te.h.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(te.audit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := audit.Verify(f); err != nil || n != 3 {
		t.Fatalf("audit.Verify = %d, %v; want 3 records", n, err)
	}
}
