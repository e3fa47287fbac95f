package schema

import "testing"

const benchSchema = `{"type":"object","properties":{"msg":{"type":"string"},"n":{"type":"integer"}},"required":["msg","n"]}`

func benchInstance() any { return map[string]any{"msg": "hello", "n": int64(42)} }

func BenchmarkValidateFast(b *testing.B) {
	v := compileDiff(b, benchSchema)
	in := benchInstance()
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateSanthosh(b *testing.B) {
	v := compileDiff(b, benchSchema)
	in := benchInstance()
	b.ReportAllocs()
	for b.Loop() {
		if err := v.validateRef(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompile(b *testing.B) {
	doc := mustJSON(b, benchSchema)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile("bench", doc); err != nil {
			b.Fatal(err)
		}
	}
}
