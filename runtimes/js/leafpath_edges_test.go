package js

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestLeafValueReadWhereFound: a Date, typed array or other value the
// result conversion hands to goja's Export was looked up again from the
// result's root along its path to tell null from undefined and to name
// binary data — a path that cannot be followed through a Set (a Set has
// no member "0") and that runs getters again. An invalid Date in an
// object in a Set was taken for undefined and its key dropped
// ([{"n":1}] where JSON.stringify of the values gives
// [{"when":null,"n":1}]), a Uint16Array there was named "ArrayBuffer",
// and a getter returning an invalid Date ran twice. The value found is
// the one read.
func TestLeafValueReadWhereFound(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "leaf.js", `
aios.registerTool({ name: 'inset', parameters: {} }, () => new Set([{ when: new Date(NaN), n: 1 }]));
aios.registerTool({ name: 'getter', parameters: {} }, () => {
  let reads = 0;
  return { get when() { reads++; return new Date(NaN); }, get reads() { return reads; } };
});
aios.registerTool({ name: 'binary', parameters: {} }, () => new Set([{ b: new Uint16Array(1) }]));
`)
	for tool, want := range map[string]any{
		"inset":  []any{map[string]any{"when": nil, "n": int64(1)}},
		"getter": map[string]any{"when": nil, "reads": int64(1)},
	} {
		got, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 5*time.Second)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, %v; want %#v", tool, got, err, want)
		}
	}
	_, err := call(t, p, newFakeEnv(), "binary", map[string]any{}, 5*time.Second)
	if abi.CodeOf(err) != abi.InvalidResult || !strings.Contains(err.Error(), "$[0].b: binary data (Uint16Array)") {
		t.Errorf("binary: got %v; want InvalidResult naming $[0].b a Uint16Array", err)
	}
}
