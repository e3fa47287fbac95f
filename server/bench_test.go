package server

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/aios-host/aios-host/server/jsonrpc"
)

// BenchmarkRPCToolsCallUnix: tools/call of the native echo tool over the
// unix socket (client encode, socket, server decode, whole pipeline, reply).
func BenchmarkRPCToolsCallUnix(b *testing.B) {
	ts := newTestServer(b, "", false)
	c, err := jsonrpc.DialUnix(context.Background(), ts.sock)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	params := jsonrpc.ToolsCallParams{Name: "echo", Arguments: map[string]any{"value": map[string]any{"msg": "hello", "n": 42}}}
	b.ReportAllocs()
	for b.Loop() {
		var res jsonrpc.ToolsCallResult
		if err := c.Call(ctx, "tools/call", params, &res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRPCToolsCallUnixParallel: the same with concurrent callers on one connection.
func BenchmarkRPCToolsCallUnixParallel(b *testing.B) {
	ts := newTestServer(b, "", false)
	c, err := jsonrpc.DialUnix(context.Background(), ts.sock)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	params := jsonrpc.ToolsCallParams{Name: "echo", Arguments: map[string]any{"value": 1}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := c.Call(context.Background(), "tools/call", params, nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func FuzzHandleMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo","arguments":{"value":[1,{"a":null}]}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"aios/registry.search","params":{"query":"e","limit":2}},{"jsonrpc":"2.0","method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":2,"method":"aios/registry.info","params":{"adapter_id":"org.test.native"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"aios/registry.subscribe","params":{"events":["added"]}}`,
		`[]`, `[1,2]`, `{`, `"x"`, `{"jsonrpc":"2.0","id":{},"method":"x"}`,
	} {
		f.Add([]byte(s))
	}
	ts := newTestServer(f, "", false)
	f.Fuzz(func(t *testing.T, msg []byte) {
		out := ts.s.handleMessage(context.Background(), &session{agent: "cli", transport: "fuzz"}, msg)
		if out != nil && !jsonValid(out) {
			t.Fatalf("reply is not JSON: %q", out)
		}
		// A request (a valid id, "jsonrpc": "2.0") is answered with its
		// id, whatever else is wrong with it. (A message that is not
		// UTF-8 is not JSON text: a parse error, id null.)
		var req map[string]json.RawMessage
		if jsonrpc.IsBatch(msg) || !utf8.Valid(msg) || json.Unmarshal(msg, &req) != nil || req == nil {
			return
		}
		var ver string
		if id, ok := req["id"]; ok && validID(id) && json.Unmarshal(req["jsonrpc"], &ver) == nil && ver == jsonrpc.Version {
			var resp struct{ ID json.RawMessage }
			var want bytes.Buffer
			_ = json.Compact(&want, id)
			if json.Unmarshal(out, &resp) != nil || !bytes.Equal(resp.ID, want.Bytes()) {
				t.Fatalf("request %q answered with %q", msg, out)
			}
		}
	})
}
