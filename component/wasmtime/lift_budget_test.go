//go:build wasmtime

package wasmtime

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

func pcat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func pstr(s string) []byte { return append(uleb(uint64(len(s))), s...) }

// psec is a component section of items (the core-module section takes one
// module as is).
func psec(id byte, items ...[]byte) []byte {
	b := uleb(uint64(len(items)))
	for _, x := range items {
		b = append(b, x...)
	}
	if id == 1 {
		b = items[0]
	}
	return section(id, b)
}

// testListComponent is component.listResultComponent: run: func() ->
// list<tuple<u8,u8,u8,u8>> returning n zero elements from pages pages.
func testListComponent(n int, pages int) []byte {
	body := []byte{0x00, 0x41, 0x00, 0x41, 0x10, 0x36, 0x02, 0x00}
	body = append(body, 0x41, 0x04, 0x41)
	body = append(body, sleb(int64(n))...)
	body = append(body, 0x36, 0x02, 0x00, 0x41, 0x00, 0x0b)
	core := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	core = append(core, section(1, []byte{1, 0x60, 0, 1, 0x7f})...)
	core = append(core, section(3, []byte{1, 0})...)
	core = append(core, section(5, pcat([]byte{1, 0x00}, uleb(uint64(pages))))...)
	core = append(core, section(7, pcat([]byte{2}, pstr("f"), []byte{0x00, 0x00}, pstr("memory"), []byte{0x02, 0x00}))...)
	core = append(core, section(10, pcat([]byte{1}, uleb(uint64(len(body))), body))...)
	return pcat([]byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00},
		psec(7, []byte{0x6f, 0x04, 0x7d, 0x7d, 0x7d, 0x7d}, []byte{0x70, 0x00}, []byte{0x40, 0x00, 0x00, 0x01}),
		psec(1, core),
		psec(2, []byte{0x00, 0x00, 0x00}),
		psec(6, pcat([]byte{0x00, 0x00, 0x01, 0x00}, pstr("f")), pcat([]byte{0x00, 0x02, 0x01, 0x00}, pstr("memory"))),
		psec(8, []byte{0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x02}),
		psec(11, pcat([]byte{0x00}, pstr("run"), []byte{0x01, 0x00, 0x00})),
	)
}

// Lifting is bounded (docs/components.md: 256 MiB of lifted data per
// call, counting the host's representation) on wasmtime too: a
// list<tuple<u8,u8,u8,u8>> of 2.6 M elements is refused on wazero
// (component.TestLiftedListHostMemory).
func TestLiftedListBounded(t *testing.T) {
	const n = 2_600_000
	l := newLoader(t, Options{CacheDir: t.TempDir()})
	p, err := l.LoadBytes(context.Background(), abi.Source{Path: "biglist.wasm"}, testListComponent(n, n*4/65536+2))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, err := callP(p, &fakeEnv{}, "run", map[string]any{}, 20*time.Second)
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	alloc := after.TotalAlloc - before.TotalAlloc
	st, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(st), "\n") {
		if strings.HasPrefix(line, "VmHWM") || strings.HasPrefix(line, "VmRSS") {
			t.Log(line)
		}
	}
	t.Logf("host allocated %d MiB (Go heap)", alloc>>20)
	if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "budget") {
		l, _ := v.([]any)
		t.Fatalf("got %T (%d elements) %v, want ProviderCrashed naming the lift budget", v, len(l), err)
	}
}
