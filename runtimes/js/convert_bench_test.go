package js

import (
	"testing"

	"github.com/dop251/goja"
)

// The conversion benchmarks split BenchmarkRawGojaEchoRuntime: params
// (canonical Go map) into a JS object, and a JS result object out.
var benchParams = map[string]any{"msg": "hello", "n": int64(42)}

// BenchmarkConvertToJS converts the benchmarks' params with a reused
// importer, as a worker does.
func BenchmarkConvertToJS(b *testing.B) {
	im := importer{vm: goja.New()}
	b.ReportAllocs()
	for b.Loop() {
		_ = im.value(benchParams)
	}
}

// BenchmarkConvertExport exports a JS object like the params with a
// reused exporter, as a worker does.
func BenchmarkConvertExport(b *testing.B) {
	vm := goja.New()
	v, err := vm.RunString(`({msg: "hello", n: 42})`)
	if err != nil {
		b.Fatal(err)
	}
	ex := exporter{vm: vm, limit: 64 << 20}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ex.export(v); err != nil {
			b.Fatal(err)
		}
	}
}
