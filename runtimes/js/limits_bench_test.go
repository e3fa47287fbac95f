package js

import (
	"testing"

	"github.com/dop251/goja"
)

// BenchmarkBuiltinLimits measures what the Go size checks add to ordinary
// calls of wrapped built-ins: the same loop in a plain goja runtime and in
// one with the method wrappers of limits.go.
func BenchmarkBuiltinLimits(b *testing.B) {
	for _, tc := range []struct{ name, body string }{
		{"map", "s += a.map(function (x) { return x; }).length;"},
		{"join", "s += a.join(',').length;"},
		{"split", "s += 'a,b,c'.split(',').length;"},
		{"forOf", "for (var x of a) s += x;"},
		{"apply", "s += Math.max.apply(null, a);"},
		{"stringify", "s += JSON.stringify(o).length;"},
		{"stringifyReplacer", "s += JSON.stringify(o, function (k, v) { return v; }).length;"},
	} {
		for _, wrapped := range []bool{false, true} {
			name := tc.name + "/plain"
			if wrapped {
				name = tc.name + "/limits"
			}
			b.Run(name, func(b *testing.B) {
				vm := goja.New()
				if wrapped {
					rangeErr, _ := goja.AssertConstructor(vm.Get("RangeError"))
					l := &limits{vm: vm, maxBytes: 256 << 20, rangeErr: rangeErr}
					if err := l.wrapAll(vm.Get("Array").ToObject(vm)); err != nil {
						b.Fatal(err)
					}
					if err := l.wrapStringify(vm); err != nil {
						b.Fatal(err)
					}
				}
				f, err := vm.RunString("(function (n) { var a = [1, 2, 3], s = 0, o = {id: 7, name: 'item', tags: ['a', 'b'], ok: true, nested: {x: 1.5, y: null}}; for (var i = 0; i < n; i++) { " + tc.body + " } return s; })")
				if err != nil {
					b.Fatal(err)
				}
				fn, _ := goja.AssertFunction(f)
				b.ResetTimer()
				if _, err := fn(goja.Undefined(), vm.ToValue(b.N)); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}
