package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

type listPage struct {
	Tools      []ToolInfo
	NextCursor string `json:"nextCursor"`
}

// TestToolsListPages: past server.list_page_size tools/list answers a page
// and a nextCursor; the pages together are the whole list, a tool
// registered between two pages after the cut is on a later page, and a
// cursor that is not one the server gave is InvalidParams.
func TestToolsListPages(t *testing.T) {
	ts := newTestServer(t, "  list_page_size: 2\n", false)
	c := dial(t, ts)
	ctx := context.Background()

	var names []string
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
		if len(p.Tools) > 2 {
			t.Fatalf("page of %d tools, want at most list_page_size 2", len(p.Tools))
		}
		for _, tl := range p.Tools {
			names = append(names, tl.Name)
		}
		pages++
		if pages == 1 {
			// Registered after the first page's cut (add, echo): listed later.
			p2 := native.New(abi.ProviderInfo{ID: "org.test.late", Name: "late", Version: "1.0.0"})
			p2.MustRegister(abi.ToolDef{Name: "late", Parameters: map[string]any{"type": "object"}},
				func(context.Context, any, abi.Env) (any, error) { return nil, nil })
			if err := ts.h.AddProvider(ctx, p2, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
				t.Fatal(err)
			}
		}
		if p.NextCursor == "" {
			break
		}
		if pages > 10 {
			t.Fatal("more than 10 pages for 6 tools")
		}
		cursor = p.NextCursor
	}
	want := []string{"add", "echo", "fail", "late", "secret", "slow"}
	if !slices.Equal(names, want) || pages != 3 {
		t.Fatalf("pages %d gave %v, want 3 pages of %v", pages, names, want)
	}

	// all_versions pages the same way.
	var all listPage
	if err := c.Call(ctx, "tools/list", map[string]any{"all_versions": true}, &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Tools) != 2 || all.NextCursor == "" {
		t.Fatalf("all_versions first page = %+v, want 2 tools and a cursor", all)
	}

	for _, bad := range []string{"!!", base64.RawURLEncoding.EncodeToString([]byte(`{"a":1}`)),
		base64.RawURLEncoding.EncodeToString([]byte(`["echo","one"]`)), base64.RawURLEncoding.EncodeToString([]byte(`["","1.0.0"]`))} {
		err := c.Call(ctx, "tools/list", map[string]any{"cursor": bad}, nil)
		if code, ac := rpcCode(err); code != -32602 || ac != abi.InvalidParams {
			t.Errorf("cursor %q: error %v (code %d, %s), want -32602 InvalidParams", bad, err, code, ac)
		}
	}
}

// TestToolsListCallable: with callable, tools/list leaves out what the
// session's agent may not call: reader (CallTool(*) alone) does not see
// secret, which requires ReadSpace(secret); peer (CallTool(*) over
// HTTP in this config) neither; cli does.
func TestToolsListCallable(t *testing.T) {
	ts := newTestServer(t, "", false)
	names := func(agent string, callable bool) []string {
		res, rerr := ts.s.toolsList(&session{agent: agent, transport: "unix"}, json.RawMessage(`{"callable":`+strconv.FormatBool(callable)+`}`))
		if rerr != nil {
			t.Fatal(rerr)
		}
		var out []string
		for _, ti := range res.(map[string]any)["tools"].([]ToolInfo) {
			out = append(out, ti.Name)
		}
		return out
	}
	all := []string{"add", "echo", "fail", "secret", "slow"}
	for _, tc := range []struct {
		agent    string
		callable bool
		want     []string
	}{
		{"reader", false, all},
		{"reader", true, []string{"add", "echo", "fail", "slow"}},
		{"cli", true, all},
		{"nobody", true, nil},
	} {
		if got := names(tc.agent, tc.callable); !slices.Equal(got, tc.want) {
			t.Errorf("%s callable=%v: %v, want %v", tc.agent, tc.callable, got, tc.want)
		}
	}
}
