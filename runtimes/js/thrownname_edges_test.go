package js

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestThrownPlainObjectHasNoErrorName: a thrown plain object or array
// (throw { status: 404 }, throw [1, 2]) reached the caller with
// data.name "Error", as if an Error had been thrown, though its message
// says "uncaught {…}" (found by p159). data.name is the thrown value's
// own name: an Error's, or a plain object's name member; a value with
// neither has none. An Error keeps its name.
func TestThrownPlainObjectHasNoErrorName(t *testing.T) {
	const src = `
aios.registerTool({ name: 'obj' }, () => { throw { status: 404, reason: 'missing' }; });
aios.registerTool({ name: 'arr' }, async () => { throw [1, 'two']; });
aios.registerTool({ name: 'named' }, () => { throw { name: 'HttpError', message: 'gone' }; });
aios.registerTool({ name: 'err' }, () => { throw new Error('real'); });
`
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "plain.js", src)
	for tool, want := range map[string]any{"obj": nil, "arr": nil, "named": "HttpError", "err": "Error"} {
		t.Run(tool, func(t *testing.T) {
			_, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 5*time.Second)
			te := wantCode(t, err, abi.ProviderError)
			data, _ := te.Data.(map[string]any)
			if got := data["name"]; got != want {
				t.Errorf("data.name = %v, want %v (message %q)", got, want, te.Message)
			}
			if te.Data != nil && len(data) == 0 {
				t.Errorf("data = %#v: an empty object where there is nothing to say", te.Data)
			}
		})
	}
}
