package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestSearchCapabilitiesBounded: aios/registry.search bounded the distinct
// words of its query (each is matched against every adapter) but not its
// capabilities, each parsed and checked against every adapter too: an
// 8 MB body of 500 000 "ReadSpace(x)" kept the server busy 4.6 s on the
// nine sample adapters, longer with more (found by p144). A repeated
// capability counts once, and more than 32 distinct ones are refused
// -32602 naming the count and the bound.
func TestSearchCapabilitiesBounded(t *testing.T) {
	ts := newTestServer(t, "", false)
	c := dial(t, ts)
	var one, many struct{ Total int }
	if err := c.Call(context.Background(), "aios/registry.search", map[string]any{"capabilities": []string{"CallTool(*)"}}, &one); err != nil {
		t.Fatal(err)
	}
	rep := make([]string, 5000)
	for i := range rep {
		rep[i] = "CallTool(*)"
	}
	if err := c.Call(context.Background(), "aios/registry.search", map[string]any{"capabilities": rep}, &many); err != nil || many.Total != one.Total {
		t.Fatalf("a capability repeated 5000 times: %v, total %d, want %d as for one", err, many.Total, one.Total)
	}
	distinct := make([]string, maxSearchWords+1)
	for i := range distinct {
		distinct[i] = fmt.Sprintf("ReadSpace(s%d)", i)
	}
	if err := c.Call(context.Background(), "aios/registry.search", map[string]any{"capabilities": distinct[:maxSearchWords]}, nil); err != nil {
		t.Fatalf("%d distinct capabilities: %v", maxSearchWords, err)
	}
	err := c.Call(context.Background(), "aios/registry.search", map[string]any{"capabilities": distinct}, nil)
	if code, _ := rpcCode(err); code != -32602 || !strings.Contains(err.Error(), "capabilities") || !strings.Contains(err.Error(), fmt.Sprint(maxSearchWords)) {
		t.Fatalf("%d distinct capabilities: %v, want -32602 naming capabilities and the bound %d", len(distinct), err, maxSearchWords)
	}
}
