package js

import (
	"reflect"
	"testing"
	"time"
)

// TestStringifyListUnderFrozenPrototype: the sandbox's JSON.stringify
// (jsonlimit.go) writes an object given a property list
// (JSON.stringify(o, ['constructor', 'a'])) through a copy holding the
// listed properties, made by assigning them: once a provider (in this call
// or an earlier one of the pooled runtime) ran
// Object.freeze(Object.prototype), a listed key Object.prototype holds
// read-only made it throw "TypeError: Cannot assign to read only property
// 'constructor'" where ECMAScript's JSON.stringify writes the property, and
// a setter there ran with the value. The copy's properties are defined.
func TestStringifyListUnderFrozenPrototype(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 1, Isolation: IsolationInProcess})
	p := loadSource(t, rt, "list.js", `
let setterRan = 0;
const write = () => JSON.stringify({constructor: 1, toString: "s", token: 3, a: {valueOf: 4, b: 5}}, ["constructor", "toString", "token", "a", "valueOf"]);
aios.registerTool({name: "list"}, () => {
  const before = write();
  Object.defineProperty(Object.prototype, "token", { set(v) { setterRan++; }, get() { return undefined; } });
  Object.freeze(Object.prototype);
  let after;
  try { after = write(); } catch (e) { after = String(e); }
  return [before, after, setterRan];
});
`)
	v, err := call(t, p, newFakeEnv(), "list", map[string]any{}, 5*time.Second)
	const want = `{"constructor":1,"toString":"s","token":3,"a":{"valueOf":4}}`
	if err != nil || !reflect.DeepEqual(v, []any{want, want, int64(0)}) {
		t.Errorf("JSON.stringify with a property list before and after Object.freeze(Object.prototype), and the setter's runs: %v (%v); want [%s %s 0]", v, err, want, want)
	}
}
