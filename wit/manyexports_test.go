package wit

import (
	"fmt"
	"strings"
	"testing"
)

// manyExportsWIT is a package whose world exports n functions and an
// interface of n functions.
func manyExportsWIT(n int) string {
	var sb strings.Builder
	sb.WriteString("package a:b;\ninterface i {\n")
	for i := range n {
		fmt.Fprintf(&sb, "  record r%d { a: u32, b: string }\n  fn%d: func(x: r%d) -> u32;\n", i, i, i)
	}
	sb.WriteString("}\nworld w {\n  export i;\n")
	for i := range n {
		fmt.Fprintf(&sb, "  export g%d: func();\n", i)
	}
	sb.WriteString("}\n")
	return sb.String()
}

// TestManyExportsResolved: every export of a large world is there, in
// order.
func TestManyExportsResolved(t *testing.T) {
	const n = 2000
	r, err := ParseSource("x.wit", manyExportsWIT(n), Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := r.Packages[0].World("w")
	if len(w.Exports) != n+1 {
		t.Fatalf("%d exports, want %d", len(w.Exports), n+1)
	}
	for i, e := range w.Exports[1:] {
		if want := fmt.Sprintf("g%d", i); e.Name != want {
			t.Fatalf("export %d is %q, want %q", i+1, e.Name, want)
		}
	}
}

// BenchmarkWorldManyExports: a world's exports at 1 000 and 10 000; the
// cost grows with their number. Each export scanned all those before it
// for their positions: 10 000 took 2.4–4.4 s (0.4–0.7 s after), under
// load.
func BenchmarkWorldManyExports(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		src := manyExportsWIT(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseSource("x.wit", src, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
