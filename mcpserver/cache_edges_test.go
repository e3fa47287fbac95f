package mcpserver

import (
	"encoding/json"
	"testing"
)

// tools/list is filtered by the client's agent (mcp.tools_list: callable,
// the default), so its page must say cacheScope "private": it said "", which
// is neither value MCP defines (the go-sdk's own lists say "public").
func TestToolsListCacheScope(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-11-25")
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var r struct {
		Result struct {
			CacheScope *string `json:"cacheScope"`
			Tools      []any   `json:"tools"`
		} `json:"result"`
	}
	l := ss.mustRead()
	if err := json.Unmarshal([]byte(l), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Result.Tools) == 0 {
		t.Fatalf("no tools listed: %s", l)
	}
	if r.Result.CacheScope == nil || *r.Result.CacheScope != "private" {
		t.Fatalf("cacheScope of a per-agent tools/list: %s", l)
	}
}
