package server

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/server/jsonrpc"
)

// TestInfoNotFoundSaysWhatWasMeant: aios/registry.info of an id
// that is not an adapter's said only `adapter "…" not found`, where
// tools/call and registry.diff name the close names. Two mistakes are
// common: a misspelt id, and a tool's name given as adapter_id (the
// seed's skill ids, compat.browser.open_url, look like adapter ids).
// The first now gets the close adapter ids, the second the adapter that
// serves the tool (both in data.details too); an id close to nothing
// still gets the plain answer.
func TestInfoNotFoundSaysWhatWasMeant(t *testing.T) {
	ts := newTestServer(t, "", false)
	c := dial(t, ts)
	ctx := context.Background()
	info := func(id string) *jsonrpc.Error {
		err := c.Call(ctx, "aios/registry.info", map[string]any{"adapter_id": id}, nil)
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			t.Fatalf("%s: %v, want a JSON-RPC error", id, err)
		}
		if code, data := rpcCode(err); code != -32001 || data != "NotFound" {
			t.Fatalf("%s: %v, want -32001 NotFound", id, err)
		}
		return je
	}
	if e := info("org.test.nativ"); !strings.Contains(e.Message, `did you mean "org.test.native"`) {
		t.Errorf("misspelt id: %q", e.Message)
	}
	if e := info("echo"); !strings.Contains(e.Message, "tool") || !strings.Contains(e.Message, `"org.test.native"`) {
		t.Errorf("a tool's name: %q", e.Message)
	}
	if e := info("org.none.such"); strings.Contains(e.Message, "did you mean") {
		t.Errorf("an id close to nothing: %q", e.Message)
	}
}
