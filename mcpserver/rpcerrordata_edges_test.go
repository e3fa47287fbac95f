package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/space"
)

// TestRefusedReadErrorDataIsJSON: a resources/read refused with a message
// holding a control character or a byte that is not UTF-8 (here the audit
// log's path, in a folder named so: Linux takes any byte but '/' and NUL)
// ended the client's session (EOF): the error's data was written with Go's
// %q, whose \x01 and \xe9 are no JSON escapes, so the answer could not be
// encoded and the session went down with it. Now the data is JSON, the
// client gets the -32000 error with the ToolError in data, and the session
// goes on. So for a malformed id holding a control character, which any
// client could send: the refusal quotes it raw.
func TestRefusedReadErrorDataIsJSON(t *testing.T) {
	var full atomic.Bool
	// resourcesConfig's grants without its rate (burst 3): the audit
	// log's failure shows at the first record written after it, which may
	// take a read or two more under load, and the third read of the loop
	// was refused RateLimited instead (this stop's third clean-clone CI).
	cfg := "agents:\n  mcp:\n    grants: [\"CallTool(*)\", \"ReadSpace(docs)\"]\n"
	h, s := newTestHostWith(t, cfg, func(o *host.Options) {
		st, err := space.Open(o.Config.SpacesDir())
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "caf\xe9\x01log")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		aw, err := audit.Open(filepath.Join(dir, "audit.jsonl"), audit.Options{WriteFault: func(f *os.File, b []byte) (int, error) {
			if full.Load() {
				return 0, syscall.ENOSPC
			}
			return f.Write(b)
		}})
		if err != nil {
			t.Fatal(err)
		}
		o.Spaces, o.Audit = st, aw
	})
	id, err := h.Spaces().Put("docs", []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cs := connectStdio(t, s)
	// The commonest such message: the client's own malformed id, which
	// the refusal quotes raw ("object \x01 in space docs: …").
	_, err = cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "aios-space://docs/%01"})
	if we := (*jsonrpc.Error)(nil); !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !json.Valid(we.Data) {
		t.Fatalf("read of an id holding U+0001: %v, want -32602 with JSON data (the session lost?)", err)
	}
	uri := "aios-space://docs/" + id
	full.Store(true)
	// The audit log fails at the first record written after: from then
	// on reads are refused, naming the log's path.
	var we *jsonrpc.Error
	for end := time.Now().Add(10 * time.Second); ; {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := cs.ReadResource(rctx, &mcpsdk.ReadResourceParams{URI: uri})
		cancel()
		if errors.As(err, &we) {
			break
		}
		if err != nil {
			t.Fatalf("read while the audit log fails: %v, want a JSON-RPC error (the session lost?)", err)
		}
		if time.Now().After(end) {
			t.Fatal("reads were never refused while the audit log failed")
		}
	}
	if we.Code != -32000 || !strings.Contains(we.Message, "Unavailable") || !strings.Contains(we.Message, "audit") {
		t.Errorf("refused read: %d %q, want -32000 Unavailable naming the audit log", we.Code, we.Message)
	}
	var data map[string]map[string]string
	if err := json.Unmarshal(we.Data, &data); err != nil || data[MetaError]["code"] != "Unavailable" || !strings.Contains(data[MetaError]["message"], "audit") {
		t.Errorf("data %s (%v): want %q with code Unavailable and the message", we.Data, err, MetaError)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("the session after the refused read: %v", err)
	}
}
