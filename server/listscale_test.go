package server

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// addManyTools registers n tool names of versions versions each (native
// Go, one provider per 100 names).
func addManyTools(tb testing.TB, ts *testServer, n, versions int) {
	tb.Helper()
	ctx := context.Background()
	obj := map[string]any{"type": "object"}
	for p := 0; p*100 < n; p++ {
		prov := native.New(abi.ProviderInfo{ID: fmt.Sprintf("org.scale.p%04d", p), Name: "scale", Version: "1.0.0"})
		for i := p * 100; i < min(n, (p+1)*100); i++ {
			for v := range versions {
				prov.MustRegister(abi.ToolDef{Name: fmt.Sprintf("tool%06d", i), Version: fmt.Sprintf("1.%d.0", v), Parameters: obj},
					func(context.Context, any, abi.Env) (any, error) { return nil, nil })
			}
		}
		if err := ts.h.AddProvider(ctx, prov, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
			tb.Fatal(err)
		}
	}
}

// listAll pages through tools/list to the end, returning how many tools
// and pages it saw.
func listAll(tb testing.TB, ts *testServer, allVersions bool) (tools, pages int) {
	tb.Helper()
	cursor := ""
	for {
		params := map[string]any{"all_versions": allVersions}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, _ := json.Marshal(params)
		res, err := ts.s.toolsList(nil, raw)
		if err != nil {
			tb.Fatal(err)
		}
		m := res.(map[string]any)
		tools += len(m["tools"].([]ToolInfo))
		pages++
		next, _ := m["nextCursor"].(string)
		if next == "" {
			return tools, pages
		}
		cursor = next
	}
}

// BenchmarkToolsListAllPages: every page of tools/list (page size 100)
// over 10 000 names of 3 versions each.
func BenchmarkToolsListAllPages(b *testing.B) {
	for _, all := range []bool{false, true} {
		b.Run(fmt.Sprintf("all_versions=%v", all), func(b *testing.B) {
			ts := newTestServer(b, "  list_page_size: 100\n", false)
			addManyTools(b, ts, 10000, 3)
			b.ReportAllocs()
			for b.Loop() {
				listAll(b, ts, all)
			}
		})
	}
}
