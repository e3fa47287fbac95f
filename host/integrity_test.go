package host

import (
	"context"
	"encoding/json"
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
func TestClientStringsKeepAuditVerifiable(t *testing.T) {
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

// SpaceRead with no space name searches the spaces both caller and
// provider may read. It looked only at spaces that exist on disk, so on a
// store where alice's ReadSpace(source) space holds nothing yet the read
// was refused as CapabilityDenied ("no space is readable by both …"),
// while naming the space said NotFound.
func TestSearchOfGrantedEmptySpaceIsNotFound(t *testing.T) {
	te := newTestHost(t, nil)
	id := "sha256:" + strings.Repeat("0", 64)
	_, err := te.call("alice", "read", map[string]any{"space": "", "id": id})
	if abi.CodeOf(err) != abi.NotFound {
		t.Fatalf("search of an empty store by a caller with ReadSpace = %v, want NotFound", err)
	}
}

// A damaged copy of an object in the first space searched hid a good copy
// in the next one: the search stopped with Internal.
func TestSearchSkipsDamagedCopy(t *testing.T) {
	te := newTestHost(t, nil)
	data := []byte("the same content in two spaces")
	id, _ := te.spaces.Put("scratch", data)
	if _, err := te.spaces.Put("source", data); err != nil {
		t.Fatal(err)
	}
	h := id[len("sha256:"):]
	// "scratch" sorts before "source": damage the copy in "scratch".
	p := te.spaces.Root() + "/scratch/" + h[:2] + "/" + h[2:]
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("damaged content in the same size!!"[:len(data)]), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := te.call("alice", "read", map[string]any{"space": "", "id": id})
	if err != nil || v.(map[string]any)["data"] != string(data) || v.(map[string]any)["space"] != "source" {
		t.Fatalf("search with a damaged copy first = %v, %v; want the good copy from source", v, err)
	}
	// Only damaged copies: the damage is reported.
	_ = os.Remove(te.spaces.Root() + "/source/" + h[:2] + "/" + h[2:])
	if _, err := te.call("alice", "read", map[string]any{"space": "", "id": id}); abi.CodeOf(err) != abi.Internal {
		t.Fatalf("search with only a damaged copy = %v, want Internal", err)
	}
}

// docs/audit.md said a nested call's record names the original agent as
// its caller; the pipeline calls it as the provider (docs/pipeline.md,
// "Nested calls"), and so does the record. The agent is one parent_id up.
func TestNestedRecordCaller(t *testing.T) {
	te := newTestHost(t, nil)
	if _, err := te.call("alice", "nested", map[string]any{"tool": "whoami"}); err != nil {
		t.Fatal(err)
	}
	if err := te.h.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(te.audit)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d records, want 2", len(lines))
	}
	var child, parent map[string]any
	_ = json.Unmarshal([]byte(lines[0]), &child) // the nested call ends first
	_ = json.Unmarshal([]byte(lines[1]), &parent)
	if child["caller"] != "org.test.tools" || child["parent_id"] != parent["call_id"] || parent["caller"] != "alice" {
		t.Fatalf("nested record caller %v parent_id %v; parent call_id %v caller %v", child["caller"], child["parent_id"], parent["call_id"], parent["caller"])
	}
}
