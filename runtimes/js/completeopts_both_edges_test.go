package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCompleteOptionsBothSpellings: ctx.ai.complete('hi', {maxTokens: 10,
// max_tokens: 500}) (defaults spread under a caller's options, each in
// its spelling) asked for 10 tokens, the 500 dropped without a word. Two
// different values are refused naming both; the same value twice is
// that value.
func TestCompleteOptionsBothSpellings(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "both.js", `
const ask = async (ctx, opts) => { try { return await ctx.ai.complete('hi', opts); } catch (e) { return e.code + ': ' + e.message; } };
aios.registerTool({ name: 'differ', parameters: {} }, (p, ctx) => ask(ctx, { maxTokens: 10, max_tokens: 500 }));
aios.registerTool({ name: 'arrays', parameters: {} }, (p, ctx) => ask(ctx, { maxTokens: [1], max_tokens: [1] }));
aios.registerTool({ name: 'same', parameters: {} }, (p, ctx) => ask(ctx, { maxTokens: 7, max_tokens: 7 }));
`)
	env := newFakeEnv()
	asked := 0
	var got abi.CompleteRequest
	env.complete = func(req abi.CompleteRequest) (abi.CompleteResponse, error) {
		asked++
		got = req
		return abi.CompleteResponse{Text: "answer"}, nil
	}
	v, err := call(t, p, env, "differ", map[string]any{}, 5*time.Second)
	if s, _ := v.(string); err != nil || !strings.HasPrefix(s, "InvalidParams: ") || !strings.Contains(s, "maxTokens (10)") || !strings.Contains(s, "max_tokens (500)") || asked != 0 {
		t.Errorf("differ: %q, %v (backend asked %d times); want InvalidParams naming both values", v, err, asked)
	}
	// Values == cannot compare (it panicked on two arrays) are refused
	// as of the wrong type.
	v, err = call(t, p, env, "arrays", map[string]any{}, 5*time.Second)
	if s, _ := v.(string); err != nil || !strings.HasPrefix(s, "InvalidParams: ") || asked != 0 {
		t.Errorf("arrays: %q, %v (backend asked %d times); want InvalidParams", v, err, asked)
	}
	v, err = call(t, p, env, "same", map[string]any{}, 5*time.Second)
	if v != "answer" || err != nil || got.MaxTokens != 7 {
		t.Errorf("same: %q, %v, asked %+v; want 7 tokens asked", v, err, got)
	}
}
