package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestThrownSymbolAndBigIntNamed: a thrown Symbol said "uncaught boom",
// as if the string "boom" had been thrown unquoted, and a thrown BigInt
// "uncaught 12", the number 12's text (found by p139). They are named as
// JS writes them: Symbol(boom), 12n (console.log's 7n too).
func TestThrownSymbolAndBigIntNamed(t *testing.T) {
	rt := newRuntime(t, Options{})
	p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "prim.js", `aios.provider({ id: 'org.test.prim' });
aios.registerTool({ name: 'sym', parameters: {} }, () => { throw Symbol('boom'); });
aios.registerTool({ name: 'big', parameters: {} }, () => { throw 12n; });
aios.registerTool({ name: 'num', parameters: {} }, () => { throw 12; });
`)}, abi.RuntimeJS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	env := newFakeEnv()
	for tool, want := range map[string]string{"sym": "uncaught Symbol(boom) (at prim.js:2:", "big": "uncaught 12n (at prim.js:3:", "num": "uncaught 12 (at prim.js:4:"} {
		c := &abi.ToolCall{ID: "c1", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
		env.call = c
		_, err := p.Call(context.Background(), c, env)
		if te := wantCode(t, err, abi.ProviderError); !strings.HasPrefix(te.Message, want) {
			t.Errorf("%s: %q, want it to start %q", tool, te.Message, want)
		}
	}
}
