package host

import "testing"

// BenchmarkMeasureSmall walks the params of the echo benchmarks: one
// member, one short string (the walk checks UTF-8 since the eighteenth
// session).
func BenchmarkMeasureSmall(b *testing.B) {
	v := map[string]any{"value": "hello"}
	for b.Loop() {
		if _, ok := measure(v, 0); !ok {
			b.Fatal("not canonical")
		}
	}
}
