package js

import (
	"strings"
	"testing"

	"github.com/dop251/goja"

	"github.com/aios-host/aios-host/abi"
)

// TestExportMatchesStringify: for values JSON can carry, the direct
// exporter (plain objects read with Keys/Get) gives what JSON.stringify
// gives — enumerable own string keys only, undefined dropped, null kept,
// getters called, nested arrays and class instances, a "__proto__" own key.
func TestExportMatchesStringify(t *testing.T) {
	vm := goja.New()
	stringify, _ := goja.AssertFunction(vm.Get("JSON").(*goja.Object).Get("stringify"))
	ex := exporter{vm: vm, limit: 1 << 20}
	for _, tc := range []struct{ name, expr string }{
		{"plain", `({b: 1, a: "x", c: null, d: undefined, e: true, f: 1.5})`},
		{"non-enumerable", `(() => { const o = {a: 1}; Object.defineProperty(o, 'hidden', {value: 2, enumerable: false}); return o })()`},
		{"symbol-key", `({a: 1, [Symbol('s')]: 2})`},
		{"getter", `({get g() { return {v: 3} }, a: [1, {b: undefined, c: null}]})`},
		{"class-instance", `(() => { class P { constructor() { this.x = 1; this.y = {z: 'q'} } m() {} }; return new P() })()`},
		{"null-proto", `(() => { const o = Object.create(null); o.k = 'v'; return o })()`},
		{"proto-key", `JSON.parse('{"__proto__": {"a": 1}, "b": 2}')`},
		{"integer-keys", `({2: 'b', 1: 'a', x: 'c'})`},
		{"deep", `({a: {b: {c: {d: [{e: {}}]}}}})`},
		{"shared-not-cycle", `(() => { const s = {v: 1}; return {a: s, b: s, c: [s, s]} })()`},
		{"unicode", `({"κλειδί": "τιμή \u{1F600}"})`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := vm.RunString(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			js, err := stringify(goja.Undefined(), v)
			if err != nil {
				t.Fatal(err)
			}
			var want any
			if err := abi.UnmarshalJSONValue([]byte(js.String()), &want); err != nil {
				t.Fatal(err)
			}
			var got any
			if jex := vm.Try(func() { got, _, err = ex.export(v) }); jex != nil {
				t.Fatal(jex)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !abi.IsCanonical(got) || !equalJSON(got, want) {
				t.Errorf("export = %#v, JSON.stringify gives %s", got, js)
			}
		})
	}
}

// TestExportErrorPaths: values JSON cannot carry fail with their path, also
// below arrays (exported through goja's Export) and class instances.
func TestExportErrorPaths(t *testing.T) {
	vm := goja.New()
	ex := exporter{vm: vm, limit: 1 << 20}
	for _, tc := range []struct{ expr, want string }{
		{`({a: [1, {f() {}}]})`, "$.a[1].f: a function is not a JSON value"},
		{`(() => { const a = {}; a.self = {x: a}; return a })()`, "$.self.x: cycle"},
		{`(() => { const a = {}; a.list = [a]; return a })()`, "cycle"},
		{`({n: {m: NaN}})`, "$.n.m: NaN is not a JSON number"},
		{`({p: new Proxy({}, {})})`, "$.p: a Proxy is not exported"},
		{`({m: new Map()})`, "$.m: a Map is not a JSON value"},
	} {
		v, err := vm.RunString(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		if jex := vm.Try(func() { _, _, err = ex.export(v) }); jex != nil {
			t.Fatal(jex)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.expr, err, tc.want)
		}
	}
}
