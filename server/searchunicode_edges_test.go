package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// aios/registry.search matched a query by its bytes, lower-cased: a word
// the same to the eye but written otherwise matched nothing — "café"
// typed (U+00E9) against a description saved decomposed ("e" and U+0301,
// as macOS writes file names and many editors keep them), or "ｂｒｏｗｓｅｒ"
// in the full-width letters a Chinese input method types in its full-width
// mode, against "browser". Query and text are now compared in one
// normalization form (NFKC) as well as one case.
func TestSearchQueryUnicodeForms(t *testing.T) {
	ts := newTestServer(t, "", false)
	p := native.New(abi.ProviderInfo{ID: "org.test.cafe", Name: "Browser 浏览器", Version: "1.0.0", Description: "Cafe\u0301 menus"})
	p.MustRegister(abi.ToolDef{Name: "cafe.open", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return nil, nil })
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"caf\u00e9", "CAF\u00c9", "cafe\u0301", "ｂｒｏｗｓｅｒ", "ＢＲＯＷＳＥＲ 浏览器"} {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "aios/registry.search", "params": map[string]any{"query": q}})
		m := rawExchange(t, ts, string(b))
		res, _ := m["result"].(map[string]any)
		if res == nil || res["total"] != float64(1) {
			t.Errorf("search %q: %v; want org.test.cafe", q, m)
		}
	}
}
