package python_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestCompletionFinishReason: ctx.ai.complete answered the text alone, so
// a tool could not tell an answer the backend cut at max_tokens
// (finish_reason "length") from a whole one. ctx.ai.completion answers a
// Completion (.text, .model, .finish_reason), as JS's ctx.ai.completion
// and the Go guest's Call.Completion do; ctx.ai.complete still answers
// the text.
func TestCompletionFinishReason(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"model":"m1","choices":[{"message":{"role":"assistant","content":"a cut ans"},"finish_reason":"length"}]}`))
	}))
	t.Cleanup(backend.Close)
	h := newHostWith(t, newRuntime(t, nil), func(c *config.Config) {
		c.Inference.URL = backend.URL
		a := c.Agents["tester"]
		a.Grants = append(a.Grants, "Inference")
		c.Agents["tester"] = a
	})
	loadTool(t, h, "completion.py", `
from aios_sdk import Agent, Completion, tool

@Agent(name="Asker", capabilities=["Inference"])
class Asker:
    @tool(name="ask", parameters={})
    async def ask(self, params, ctx):
        c = await ctx.ai.completion("hi", max_tokens=3)
        t = await ctx.ai.complete("hi", max_tokens=3)
        return {"c": [c.text, c.model, c.finish_reason, isinstance(c, Completion)], "t": t}
`)
	got, err := call(h, "ask", map[string]any{}, 0)
	want := map[string]any{"c": []any{"a cut ans", "m1", "length", true}, "t": "a cut ans"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%#v, %v; want %#v", got, err, want)
	}
}
