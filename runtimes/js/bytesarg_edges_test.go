package js

import (
	"testing"
	"time"
)

// TestBytesArgumentNamed: a Uint8Array (or Uint8ClampedArray, ArrayBuffer)
// given where a host call takes a string — ctx.spaces.write's arguments
// swapped, the bytes of a read passed on as an id — was described by its
// text, the elements joined and cut: "argument 1 must be a string, got
// 1,2" (the typed arrays of other types were named with their length, a
// Uint8Array was taken for none), after the whole join (two characters a
// byte, then four bytes a character) had been built in the host to be
// cut at 64 characters. It is named by its type and length.
func TestBytesArgumentNamed(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "swapped.js", `
const m = async (f) => { try { await f(); return 'done'; } catch (e) { return e.message; } };
aios.registerTool({name: 'swapped', parameters: {type: 'object'}}, (p, ctx) => m(() => ctx.spaces.write(new Uint8Array([1, 2]), 'docs')));
aios.registerTool({name: 'bigid', parameters: {type: 'object'}}, (p, ctx) => m(() => ctx.spaces.read(new Uint8Array(4000000))));
aios.registerTool({name: 'clamped', parameters: {type: 'object'}}, (p, ctx) => m(() => ctx.callTool(new Uint8ClampedArray(3), {})));
aios.registerTool({name: 'buffer', parameters: {type: 'object'}}, (p, ctx) => m(() => ctx.spaces.read('x', new ArrayBuffer(5))));
`)
	for tool, want := range map[string]string{
		"swapped": "ctx.spaces.write: argument 1 must be a string, got a Uint8Array of 2 elements",
		"bigid":   "ctx.spaces.read: argument 1 must be a string, got a Uint8Array of 4000000 elements",
		"clamped": "ctx.callTool: argument 1 must be a string, got a Uint8ClampedArray of 3 elements",
		"buffer":  "ctx.spaces.read: argument 2 must be a string, got an ArrayBuffer of 5 bytes",
	} {
		v, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 10*time.Second)
		if s, _ := v.(string); err != nil || s != want {
			t.Errorf("%s: got %.300q, %v; want %q", tool, v, err, want)
		}
	}
}
