package python_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// TestCompletionStopSequences: a Python tool could not give the backend
// stop sequences (chat-completions' "stop"), which an MCP server's
// sampling could: ctx.ai.complete(..., stop=) takes a string or a list of
// strings and they reach the backend; another type is refused naming it.
func TestCompletionStopSequences(t *testing.T) {
	var mu sync.Mutex
	var stops []any
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Stop any `json:"stop"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		stops = append(stops, body.Stop)
		mu.Unlock()
		_, _ = w.Write([]byte(`{"model":"m1","choices":[{"message":{"role":"assistant","content":"t"},"finish_reason":"stop"}]}`))
	}))
	t.Cleanup(backend.Close)
	h := newHostWith(t, newRuntime(t, nil), func(c *config.Config) {
		c.Inference.URL = backend.URL
		a := c.Agents["tester"]
		a.Grants = append(a.Grants, "Inference")
		c.Agents["tester"] = a
	})
	loadTool(t, h, "stop.py", `
from aios_sdk import Agent, tool

@Agent(name="Stopper", capabilities=["Inference"])
class Stopper:
    @tool(name="ask", parameters={})
    async def ask(self, params, ctx):
        await ctx.ai.complete("hi", stop=["\n\n", "END"])
        await ctx.ai.completion("hi", stop="X")
        return "ok"

    @tool(name="bad", parameters={})
    async def bad(self, params, ctx):
        return await ctx.ai.complete("hi", stop=["a", 7])
`)
	got, err := call(h, "ask", map[string]any{}, 0)
	want := []any{[]any{"\n\n", "END"}, []any{"X"}}
	mu.Lock()
	asked := stops
	mu.Unlock()
	if err != nil || got != "ok" || !reflect.DeepEqual(asked, want) {
		t.Fatalf("%v, %v; the backend was asked with stop %q, want %q", got, err, asked, want)
	}
	_, err = call(h, "bad", map[string]any{}, 0)
	if te := abi.AsToolError(err, abi.Internal); te.Code != abi.InvalidParams || !strings.Contains(te.Message, "stop") {
		t.Fatalf("stop=['a', 7]: %v; want InvalidParams naming stop", err)
	}
}
