package js

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

const completionStopSource = `
aios.registerTool({name: 'ask', description: 'ask', parameters: {type: 'object'}}, async (p, ctx) => {
  await ctx.ai.complete('hi', {stop: ['\n\n', 'END']});
  await ctx.ai.completion('hi', {stop: 'X'});
  return 'ok';
});
aios.registerTool({name: 'bad', description: 'bad stop', parameters: {type: 'object'}}, async (p, ctx) => {
  return await ctx.ai.complete('hi', {stop: ['a', 7]});
});`

// TestCompletionStopSequences: a tool could not give the backend stop
// sequences (chat-completions' "stop"), which an MCP server's sampling
// could: ctx.ai.complete's option stop, a string or an array of strings,
// reaches the backend, in process and in a worker process alike; another
// type is refused naming the option.
func TestCompletionStopSequences(t *testing.T) {
	env := newFakeEnv()
	var mu sync.Mutex
	var got [][]string
	env.complete = func(req abi.CompleteRequest) (abi.CompleteResponse, error) {
		mu.Lock()
		got = append(got, req.Stop)
		mu.Unlock()
		return abi.CompleteResponse{Text: "t"}, nil
	}
	want := [][]string{{"\n\n", "END"}, {"X"}}
	check := func(where string, res any, err error) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if err != nil || res != "ok" || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %v, %v; the backend was asked with stop %q, want %q", where, res, err, got, want)
		}
		got = nil
	}
	badOK := func(where string, err error) {
		t.Helper()
		if te := abi.AsToolError(err, abi.Internal); te.Code != abi.InvalidParams || !strings.Contains(te.Message, "stop") {
			t.Fatalf("%s: stop ['a', 7]: %v; want InvalidParams naming the option stop", where, err)
		}
	}
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "stop.js", completionStopSource)
	res, err := call(t, p, env, "ask", map[string]any{}, 30*time.Second)
	check("in process", res, err)
	_, err = call(t, p, env, "bad", map[string]any{}, 30*time.Second)
	badOK("in process", err)
	pp := loadIsolated(t, Options{}, completionStopSource)
	res, err = callIsolated(t, pp, env, "ask", map[string]any{}, 60*time.Second)
	check("in a worker process", res, err)
	_, err = callIsolated(t, pp, env, "bad", map[string]any{}, 60*time.Second)
	badOK("in a worker process", err)
}
