package js

import (
	"testing"
	"time"
)

// TestNoGojaGoErrorGlobal: tool code saw a global GoError, goja's own
// constructor for Go errors, in-process and in a worker process: not an
// ECMAScript built-in nor one of the globals docs/js.md lists, and not
// there in QuickJS-ng, which this runtime stands in for. It is gone; the
// globals are the built-ins and the SDK's.
func TestNoGojaGoErrorGlobal(t *testing.T) {
	src := "aios.registerTool({ name: 'g', parameters: {} }, () => typeof GoError + ' ' + ('GoError' in globalThis));\n"
	p := loadSource(t, newRuntime(t, Options{}), "goerr.js", src)
	v, err := call(t, p, newFakeEnv(), "g", map[string]any{}, 30*time.Second)
	if err != nil || v != "undefined false" {
		t.Errorf("in-process: %v %v; want \"undefined false\"", v, err)
	}
	pp := loadIsolated(t, Options{}, src)
	v, err = callIsolated(t, pp, newFakeEnv(), "g", map[string]any{}, 30*time.Second)
	if err != nil || v != "undefined false" {
		t.Errorf("worker process: %v %v; want \"undefined false\"", v, err)
	}
}
