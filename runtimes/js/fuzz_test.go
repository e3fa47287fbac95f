package js

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dop251/goja"

	"github.com/aios-host/aios-host/abi"
)

// FuzzExportJSON checks the JS→Go conversion against the ABI's JSON
// decoding: any JSON document parsed by JS (JSON.parse) and exported must
// equal the same document decoded by abi.UnmarshalJSONValue, and a value
// sent into JS with toJS must come back unchanged.
func FuzzExportJSON(f *testing.F) {
	for _, s := range []string{
		`null`, `true`, `0`, `-0`, `1.5`, `1e300`, `9007199254740993`, `-9223372036854775808`,
		`"héllo \u0000 \ud83d\ude00"`, `[]`, `{}`, `[1,[2,[3]]]`, `{"a":{"b":[null,false,"x"]}}`,
		`{"":1,"__proto__":2}`, `[1.0, 2.50, 3e2]`,
		`{"c":[{"z":1,"y":[2,{"x":3,"w":4,"v":5}]},[]],"b":{"d":{},"a":[[],[[]]]},"a":0}`,
	} {
		f.Add(s)
	}
	vm := goja.New()
	parse, _ := goja.AssertFunction(vm.Get("JSON").(*goja.Object).Get("parse"))
	im := importer{vm: vm} // reused across inputs, as a worker reuses it
	f.Fuzz(func(t *testing.T, doc string) {
		var want any
		if err := abi.UnmarshalJSONValue([]byte(doc), &want); err != nil {
			return
		}
		// Round trip Go → JS → Go.
		ex := exporter{vm: vm}
		back, _, err := ex.export(toJS(vm, want))
		if err != nil {
			t.Fatalf("export(toJS(%s)): %v", doc, err)
		}
		if !equalJSON(back, want) {
			t.Fatalf("round trip of %s = %v, want %v", doc, back, want)
		}
		// The same with the reused importer: its scratch stacks must be
		// empty again afterwards.
		back, _, err = ex.export(im.value(want))
		if err != nil || !equalJSON(back, want) {
			t.Fatalf("reused importer: round trip of %s = %v (%v), want %v", doc, back, err, want)
		}
		if len(im.props) != 0 || len(im.items) != 0 {
			t.Fatalf("importer scratch not empty after %s: %d props, %d items", doc, len(im.props), len(im.items))
		}
		// JSON.parse in JS → Go, where JS numbers are doubles: compare
		// through float64 semantics by re-decoding want's JSON in JS.
		jv, err := parse(goja.Undefined(), vm.ToValue(doc))
		if err != nil {
			return // JS is stricter about some inputs (e.g. lone surrogates)
		}
		got, _, err := ex.export(jv)
		if err != nil {
			t.Fatalf("export(JSON.parse(%s)): %v", doc, err)
		}
		gj, _ := json.Marshal(got)
		var reparsed any
		if err := abi.UnmarshalJSONValue(gj, &reparsed); err != nil {
			t.Fatalf("exported %s is not valid JSON: %v", gj, err)
		}
		if !abi.IsCanonical(got) {
			t.Fatalf("export(JSON.parse(%s)) = %#v is not canonical", doc, got)
		}
	})
}

// FuzzLoadSource loads arbitrary provider sources: loading either works or
// fails with an error, never a panic, and a loaded provider describes valid
// tools.
func FuzzLoadSource(f *testing.F) {
	for _, s := range []string{
		"aios.registerTool({name: 'a'}, () => 1);",
		"import { Agent, tool } from 'aios-sdk';\n@Agent({})\nclass A { @tool({name: 'x'}) x() { return 1; } }",
		"let = ;",
		"for(;;){}",
		"throw new Error('x')",
		"aios.registerTool({name: 'a', parameters: 5}, () => 1);",
		"aios.registerTool(null, null);",
		"aios.provider({capabilities: [1]}); aios.registerTool({name:'b'}, ()=>1)",
		"import x from 'aios-sdk'; x.registerTool({name: 'c', parameters: {p: {type: 'string', optional: true}}}, () => 1);",
	} {
		f.Add(s)
	}
	rt := New(Options{LoadTimeout: 100 * 1e6})
	defer rt.Close()
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		path := filepath.Join(dir, "fuzz.ts")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeTS)
		if err != nil {
			return
		}
		defer p.Close()
		reg := p.Describe()
		if err := abi.ValidateProviderID(reg.Provider.ID); err != nil {
			t.Fatal(err)
		}
		for _, d := range reg.Tools {
			if err := abi.ValidateToolName(d.Name); err != nil {
				t.Fatal(err)
			}
		}
	})
}
