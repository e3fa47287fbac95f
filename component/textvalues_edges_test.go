package component

import (
	"sync/atomic"
	"testing"
)

// TestCallToolParamsText: a component's call-tool params-json that is
// not Unicode text (an escaped lone surrogate) is refused before the tool
// is called: encoding/json read {"\ud800":1,"\udc00":2} as {"\ufffd":2}
// and the tool got that. (The text is put in the guest's memory by a
// spaces.read of an object holding it, then passed to call-tool.)
func TestCallToolParamsText(t *testing.T) {
	p := loadHexComponent(t, sdkBadHex, "sdkbad.wasm")
	for _, text := range []string{`{"\ud800":1,"\udc00":2}`, `{"a":"x\uDC00"}`} {
		var called atomic.Bool
		env := &fakeEnv{objects: map[string][]byte{"o1": []byte(text)}}
		env.tools = func(tool string, params any) (any, error) { called.Store(true); return params, nil }
		if _, err := call(t, p, env, "run", map[string]any{"op": 0, "p": 16, "n": 2, "ret": 8192}); err != nil {
			t.Fatal(err)
		}
		v, err := call(t, p, env, "run", map[string]any{"op": 2, "p": 8192, "n": len(text), "ret": 12288})
		if err != nil || v != int64(1) { // result's discriminant: err
			t.Errorf("%s: %v %v, want call-tool's error", text, v, err)
		}
		if called.Load() {
			t.Errorf("%s: the tool was called with the text read as U+FFFD", text)
		}
	}
}
