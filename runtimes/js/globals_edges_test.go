package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestWebGlobalHint: the globals a browser or node author reaches for
// besides fetch, process, require and Buffer (TestNodeGlobalHint) —
// setInterval, TextEncoder, structuredClone, crypto.randomUUID, atob,
// URL, performance.now, Intl — failed "ReferenceError: X is not defined"
// and nothing more, and docs/js.md did not say they are absent. The
// message now says JS tools run on goja and what to use instead.
func TestWebGlobalHint(t *testing.T) {
	rt := newRuntime(t, Options{})
	cases := map[string]struct{ expr, want string }{
		"interval":   {"setInterval(() => 1, 10)", "no setInterval, setTimeout"},
		"immediate":  {"setImmediate(() => 1)", "no setImmediate, setTimeout(fn, 0)"},
		"encoder":    {"new TextEncoder().encode('x')", "no TextEncoder, ctx.spaces.write"},
		"decoder":    {"new TextDecoder().decode(new Uint8Array(1))", "no TextDecoder, ctx.spaces.read"},
		"clone":      {"structuredClone({ a: 1 })", "no structuredClone, JSON.parse(JSON.stringify(x))"},
		"uuid":       {"crypto.randomUUID()", "no crypto, "},
		"atob":       {"atob('eA==')", "no atob, "},
		"url":        {"new URL('http://x')", "no URL, no URL parser (encodeURIComponent"},
		"perf":       {"performance.now()", "no performance, Date.now()"},
		"intl":       {"new Intl.NumberFormat('de').format(1)", "no Intl, "},
		"globalNode": {"global.x", "no global, globalThis"},
	}
	src := "aios.provider({ id: 'org.test.web' });\n"
	for name, c := range cases {
		src += "aios.registerTool({ name: '" + name + "', parameters: {} }, () => " + c.expr + ");\n"
	}
	p := loadSource(t, rt, "web.js", src)
	for name, c := range cases {
		_, err := call(t, p, newFakeEnv(), name, map[string]any{}, 30*time.Second)
		te := wantCode(t, err, abi.ProviderError)
		if !strings.Contains(te.Message, "ReferenceError") || !strings.Contains(te.Message, "not node or a browser: "+c.want) || !strings.Contains(te.Message, "docs/js.md") || !strings.Contains(te.Message, "(at web.js:") {
			t.Errorf("%s: %q, want the hint %q, docs/js.md and the position", name, te.Message, c.want)
		}
	}
}

// TestQueueMicrotaskNeedsFunction: queueMicrotask(work()) — the callback
// called instead of passed — ran nothing without a word (the prelude
// handed it to Promise.prototype.then, which ignores a non-function),
// where browsers, node and this runtime's setTimeout throw a TypeError.
// It now throws one naming what it got; a function still runs before
// the next timer.
func TestQueueMicrotaskNeedsFunction(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "micro.js", `aios.provider({ id: 'org.test.micro' });
aios.registerTool({ name: 'bad', parameters: {} }, () => { queueMicrotask(42); return 'ran'; });
aios.registerTool({ name: 'good', parameters: {} }, () => new Promise((resolve) => {
  const order = [];
  setTimeout(() => resolve(order), 0);
  queueMicrotask(() => order.push('micro'));
}));
`)
	_, err := call(t, p, newFakeEnv(), "bad", map[string]any{}, 30*time.Second)
	if err == nil {
		t.Fatal("bad: succeeded; want a TypeError")
	}
	if te := wantCode(t, err, abi.ProviderError); !strings.Contains(te.Message, "TypeError: queueMicrotask: the argument must be a function, got number (at micro.js:2:") {
		t.Errorf("bad: %q", te.Message)
	}
	got, err := call(t, p, newFakeEnv(), "good", map[string]any{}, 30*time.Second)
	if l, _ := got.([]any); err != nil || len(l) != 1 || l[0] != "micro" {
		t.Errorf("good: %#v %v, want [micro]", got, err)
	}
}
