package js

import (
	"fmt"
	"testing"
	"time"
)

const fffdKeysSrc = `aios.registerTool({ name: 'k' }, (p) => { const o = {}; for (let i = 0; i < p.n; i++) o["\ufffd" + i] = i; return o; });`

// TestManyFFFDKeysKept: a result of many keys holding a real U+FFFD keeps
// each of them (the check for a lone surrogate, which Keys also gives as
// U+FFFD, remembers the keys it met).
func TestManyFFFDKeysKept(t *testing.T) {
	const n = 5000
	p := loadSource(t, newRuntime(t, Options{}), "k.js", fffdKeysSrc)
	got, err := call(t, p, newFakeEnv(), "k", map[string]any{"n": int64(n)}, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := got.(map[string]any)
	if len(m) != n {
		t.Fatalf("%d keys, want %d", len(m), n)
	}
	for i := range n {
		if v := m[fmt.Sprintf("\ufffd%d", i)]; v != int64(i) {
			t.Fatalf("key \\ufffd%d: %#v, want %d", i, v, i)
		}
	}
}

// BenchmarkFFFDKeys: a result object of 2 000 and 20 000 keys holding
// U+FFFD. Each such key was looked for in a list of those met before it:
// 20 000 took 1.9 s (0.3–0.5 s after, under load).
func BenchmarkFFFDKeys(b *testing.B) {
	p := loadSource(b, newRuntime(b, Options{}), "k.js", fffdKeysSrc)
	for _, n := range []int{2000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := call(b, p, newFakeEnv(), "k", map[string]any{"n": int64(n)}, 2*time.Minute); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
