package js

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// completionSource asks ctx.ai.completion and returns what it answered,
// and what ctx.ai.complete answers for the same backend answer.
const completionSource = `
aios.registerTool({name: 'ask', description: 'ask', parameters: {type: 'object'}}, async (p, ctx) => {
  const c = await ctx.ai.completion('hi', {maxTokens: 3});
  const t = await ctx.ai.complete('hi', {maxTokens: 3});
  return {c, t};
});
aios.registerTool({name: 'bad', description: 'bad options', parameters: {type: 'object'}}, async (p, ctx) => {
  return await ctx.ai.completion('hi', {maxTokens: -1});
});`

// TestCompletionFinishReason: ctx.ai.complete answered the text alone, so
// a tool could not tell an answer the backend cut at maxTokens
// (finish_reason "length") from a whole one, and the host had the reason
// (abi.CompleteResponse.FinishReason). ctx.ai.completion answers {text,
// model, finishReason}, in process and in a worker process alike;
// ctx.ai.complete still answers the text.
func TestCompletionFinishReason(t *testing.T) {
	env := newFakeEnv()
	env.complete = func(req abi.CompleteRequest) (abi.CompleteResponse, error) {
		return abi.CompleteResponse{Text: "a cut ans", Model: "m1", FinishReason: "length"}, nil
	}
	want := map[string]any{"c": map[string]any{"text": "a cut ans", "model": "m1", "finishReason": "length"}, "t": "a cut ans"}
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "completion.js", completionSource)
	got, err := call(t, p, env, "ask", map[string]any{}, 30*time.Second)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("in process: %#v, %v; want %#v", got, err, want)
	}
	_, err = call(t, p, env, "bad", map[string]any{}, 30*time.Second)
	if te := abi.AsToolError(err, abi.Internal); te.Code != abi.InvalidParams || !strings.Contains(te.Message, "ctx.ai.completion: option maxTokens") {
		t.Fatalf("bad options: %v; want InvalidParams naming ctx.ai.completion's maxTokens", err)
	}
	pp := loadIsolated(t, Options{}, completionSource)
	got, err = callIsolated(t, pp, env, "ask", map[string]any{}, 60*time.Second)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("in a worker process: %#v, %v; want %#v", got, err, want)
	}
}
