package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestThrownCyclicAndCollectionsNamed: a thrown object that is no Error
// was shown as its JSON, but one JSON cannot carry (a cycle: an object
// pointing back at itself) and a thrown Map or Set said only "uncaught
// [object Object]" / "[object Map]"; ctx.log of a cyclic object said
// "[object Object]" too. They are now shown as the log shows a Map or a
// Set (by what they hold), a cycle as "[Circular]".
func TestThrownCyclicAndCollectionsNamed(t *testing.T) {
	rt := newRuntime(t, Options{})
	p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "thrown.js", `aios.provider({ id: 'org.test.thrown' });
aios.registerTool({ name: 'cyclic', parameters: {} }, () => { const o = { status: 500, reason: 'loop' }; o.self = o; throw o; });
aios.registerTool({ name: 'map', parameters: {} }, () => { throw new Map([['status', 404]]); });
aios.registerTool({ name: 'set', parameters: {} }, () => { throw new Set(['a', 'b']); });
aios.registerTool({ name: 'logcyc', parameters: {} }, (p, ctx) => { const o = { name: 'n' }; o.me = o; ctx.log(o); return 1; });
`)}, abi.RuntimeJS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	env := newFakeEnv()
	for tool, wants := range map[string][]string{
		"cyclic": {`uncaught {"status":500,"reason":"loop","self":"[Circular]"}`, "(at thrown.js:2:"},
		"map":    {`uncaught {"status":404}`, "(at thrown.js:3:"},
		"set":    {`uncaught ["a","b"]`, "(at thrown.js:4:"},
	} {
		c := &abi.ToolCall{ID: "c1", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
		env.call = c
		_, err := p.Call(context.Background(), c, env)
		te := wantCode(t, err, abi.ProviderError)
		for _, want := range wants {
			if !strings.Contains(te.Message, want) {
				t.Errorf("%s: %q does not say %q", tool, te.Message, want)
			}
		}
	}
	c := &abi.ToolCall{ID: "c2", Tool: "logcyc", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
	env.call = c
	if _, err := p.Call(context.Background(), c, env); err != nil {
		t.Fatal(err)
	}
	env.mu.Lock()
	logs := strings.Join(env.logs, "\n")
	env.mu.Unlock()
	if !strings.Contains(logs, `{"name":"n","me":"[Circular]"}`) {
		t.Errorf("log of a cyclic object: %q", logs)
	}
}
