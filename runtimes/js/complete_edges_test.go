package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCompleteOptionsChecked: ctx.ai.complete's options were taken
// only when of the expected type and silently dropped otherwise
// (maxTokens: '100', temperature: 'hot', system: 42 reached the backend as
// absent), and a number was converted to int without a check (maxTokens:
// -5 sent as -5, 2.5 as 2, 1e300 as -9223372036854775808). The WASM
// guests' ai_complete refuses such values; so does JS now, with a
// TypeError naming the option.
func TestCompleteOptionsChecked(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "complete.js", `
aios.registerTool({name: 'ask', description: 'ask', parameters: {type: 'object'}}, async (p, ctx) => {
  return await ctx.ai.complete('hi', p.opts);
});`)
	env := newFakeEnv()
	var got abi.CompleteRequest
	env.complete = func(req abi.CompleteRequest) (abi.CompleteResponse, error) {
		got = req
		return abi.CompleteResponse{Text: "ok"}, nil
	}
	for _, c := range []struct {
		opts any
		want string
	}{
		{map[string]any{"maxTokens": "100"}, "maxTokens"},
		{map[string]any{"maxTokens": int64(-5)}, "maxTokens"},
		{map[string]any{"maxTokens": 2.5}, "maxTokens"},
		{map[string]any{"maxTokens": 1e300}, "maxTokens"},
		{map[string]any{"max_tokens": int64(1) << 40}, "max_tokens"},
		{map[string]any{"temperature": "hot"}, "temperature"},
		{map[string]any{"system": int64(42)}, "system"},
		{map[string]any{"model": true}, "model"},
		{"fast", "options"},
	} {
		got = abi.CompleteRequest{}
		v, err := call(t, p, env, "ask", map[string]any{"opts": c.opts}, 5*time.Second)
		if err == nil || !strings.Contains(err.Error(), "ctx.ai.complete") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("opts %v: %v %v (backend got %+v); want an error naming %s", c.opts, v, err, got, c.want)
		}
	}
	// Good options still pass, as given.
	v, err := call(t, p, env, "ask", map[string]any{"opts": map[string]any{"maxTokens": int64(7), "temperature": 0.5, "system": "s", "model": "m"}}, 5*time.Second)
	if err != nil || v != "ok" || got.MaxTokens != 7 || got.Temperature == nil || *got.Temperature != 0.5 || got.System != "s" || got.Model != "m" {
		t.Fatalf("good options: %v %v, backend got %+v", v, err, got)
	}
	if v, err := call(t, p, env, "ask", map[string]any{}, 5*time.Second); err != nil || v != "ok" {
		t.Fatalf("no options: %v %v", v, err)
	}
}
