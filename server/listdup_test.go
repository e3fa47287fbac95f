package server

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestToolsListNameOnceWhenDefaultMoves: without all_versions each name
// is listed once, even when its default version moves up between two
// pages (a newer version registered after the page that listed it).
func TestToolsListNameOnceWhenDefaultMoves(t *testing.T) {
	ts := newTestServer(t, "  list_page_size: 2\n", false)
	c := dial(t, ts)
	ctx := context.Background()
	seen := map[string]int{}
	cursor, pages := "", 0
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var p listPage
		if err := c.Call(ctx, "tools/list", params, &p); err != nil {
			t.Fatal(err)
		}
		for _, tl := range p.Tools {
			seen[tl.Name]++
		}
		if pages++; pages == 1 {
			// The first page ended with echo@1.0.0: echo@2.0.0 is now its default.
			if last := p.Tools[len(p.Tools)-1]; last.Name != "echo" {
				t.Fatalf("first page ends with %s, want echo", last.Name)
			}
			p2 := native.New(abi.ProviderInfo{ID: "org.test.echo2", Name: "echo2", Version: "2.0.0"})
			p2.MustRegister(abi.ToolDef{Name: "echo", Version: "2.0.0", Parameters: map[string]any{"type": "object"}},
				func(context.Context, any, abi.Env) (any, error) { return nil, nil })
			if err := ts.h.AddProvider(ctx, p2, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
				t.Fatal(err)
			}
		}
		if p.NextCursor == "" || pages > 10 {
			break
		}
		cursor = p.NextCursor
	}
	for name, n := range seen {
		if n != 1 {
			t.Errorf("%s listed %d times", name, n)
		}
	}
	if len(seen) != 5 {
		t.Errorf("listed %v, want the 5 tools", seen)
	}
}
