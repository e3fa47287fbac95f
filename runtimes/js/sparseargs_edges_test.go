package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestSparseArrayArgumentsBounded: a result's array of more elements than
// the provider's memory budget allows to convert (budget / 16, a Go slot
// each) is TooLarge before anything is allocated, but the same array in
// ctx.callTool's params, or in a tool definition read at load, was made
// whole: a sparse array of 60 million holes (a.length = 6e7, a few bytes
// to JS) took 1.3 GiB of the host's memory and was handed to the nested
// tool. Both are bounded as results are.
func TestSparseArrayArgumentsBounded(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "sparse.js", `
aios.registerTool({ name: 'nested', parameters: {} }, async (p, ctx) => {
  const rows = [];
  rows.length = 20000000;
  try { await ctx.callTool('echo', { rows }); return 'called'; } catch (e) { return e.message; }
});
`)
	env := newFakeEnv()
	env.tools["echo"] = func(ctx context.Context, params any) (any, error) { return "echoed", nil }
	got, err := call(t, p, env, "nested", map[string]any{}, 20*time.Second)
	if s, _ := got.(string); err != nil || !strings.Contains(s, "ctx.callTool params: $.rows: an array of 20000000 elements would take more than the provider's memory budget") {
		t.Errorf("nested: got %q, %v; want the params refused naming $.rows and the memory budget", got, err)
	}

	path := writeSource(t, "sparsedef.js", `
const tags = [];
tags.length = 20000000;
aios.registerTool({ name: 't', tags }, () => 1);
`)
	_, err = rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
	if err == nil || !strings.Contains(err.Error(), "an array of 20000000 elements would take more than the provider's memory budget") {
		t.Errorf("load: got %v; want the definition refused naming the memory budget", err)
	}
}
