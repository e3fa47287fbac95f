package component

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// listResultComponent is a component exporting run: func() ->
// list<tuple<u8,u8,u8,u8>> whose core function returns a list of n
// elements (all zero) from a memory of pages pages.
func listResultComponent(n int, pages int) []byte {
	body := []byte{0x00, // no locals
		0x41, 0x00, 0x41, 0x10, 0x36, 0x02, 0x00} // i32.store [0] = 16 (list pointer)
	body = append(body, 0x41, 0x04, 0x41)
	body = appendSLEB(body, int64(n))
	body = append(body, 0x36, 0x02, 0x00, // i32.store [4] = n
		0x41, 0x00, 0x0b) // return pointer 0
	coreSec := func(id byte, b []byte) []byte { return append(append([]byte{id}, leb(len(b))...), b...) }
	core := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	core = append(core, coreSec(1, []byte{1, 0x60, 0, 1, 0x7f})...)
	core = append(core, coreSec(3, []byte{1, 0})...)
	core = append(core, coreSec(5, cat([]byte{1, 0x00}, leb(pages)))...)
	core = append(core, coreSec(7, cat([]byte{2}, str("f"), []byte{0x00, 0x00}, str("memory"), []byte{0x02, 0x00}))...)
	core = append(core, coreSec(10, cat([]byte{1}, leb(len(body)), body))...)
	return comp(
		sec(7, []byte{0x6f, 0x04, 0x7d, 0x7d, 0x7d, 0x7d}, []byte{0x70, 0x00}, []byte{0x40, 0x00, 0x00, 0x01}),
		sec(1, core),
		sec(2, []byte{0x00, 0x00, 0x00}),
		sec(6, cat([]byte{0x00, 0x00, 0x01, 0x00}, str("f")), cat([]byte{0x00, 0x02, 0x01, 0x00}, str("memory"))),
		sec(8, []byte{0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x02}),
		sec(11, cat([]byte{0x00}, str("run"), []byte{0x01, 0x00, 0x00})),
	)
}

func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// TestProbeLiftedListHostMemory: a component returning
// list<tuple<u8,u8,u8,u8>> of 2.6 M elements (10 MiB of its memory) was
// within the lift budget, which counted guest bytes, and the host
// allocated about 30 times that to lift it and more to make its JSON. The
// budget now counts the host's representation: the call is refused as
// ProviderCrashed naming the budget, and the provider serves on.
func TestProbeLiftedListHostMemory(t *testing.T) {
	const n = 2_600_000
	p, err := New(context.Background(), listResultComponent(n, n*4/65536+2), "biglist.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, err := call(t, p, &fakeEnv{}, "run", map[string]any{})
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("host allocated %d MiB", alloc>>20)
	if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("got %T %v, want ProviderCrashed naming the lift budget", v, err)
	}
	if alloc > 64<<20 {
		t.Fatalf("refusing the list allocated %d MiB", alloc>>20)
	}
	small, err := New(context.Background(), listResultComponent(1000, 1), "smalllist.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	v, err = call(t, small, &fakeEnv{}, "run", map[string]any{})
	if l, ok := v.([]any); err != nil || !ok || len(l) != 1000 {
		t.Fatalf("a small list: %T %v", v, err)
	}
}
