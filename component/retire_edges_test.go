package component

import (
	"context"
	"testing"
)

// privateMemoryComponent exports run: func() -> u32 from a core module
// whose memory (one page) is not exported: run grows it by grow pages and
// returns 7. Nothing in the component needs the memory (no canonical
// option names it), so no module exports it.
func privateMemoryComponent(grow int) []byte {
	body := []byte{0x00, // no locals
		0x41}
	body = appendSLEB(body, int64(grow))
	body = append(body, 0x40, 0x00, 0x1a, // memory.grow 0; drop
		0x41, 0x07, 0x0b) // i32.const 7
	coreSec := func(id byte, b []byte) []byte { return append(append([]byte{id}, leb(len(b))...), b...) }
	core := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	core = append(core, coreSec(1, []byte{1, 0x60, 0, 1, 0x7f})...)
	core = append(core, coreSec(3, []byte{1, 0})...)
	core = append(core, coreSec(5, []byte{1, 0x00, 0x01})...)
	core = append(core, coreSec(7, cat([]byte{1}, str("f"), []byte{0x00, 0x00}))...)
	core = append(core, coreSec(10, cat([]byte{1}, leb(len(body)), body))...)
	return comp(
		sec(7, []byte{0x40, 0x00, 0x00, 0x79}),
		sec(1, core),
		sec(2, []byte{0x00, 0x00, 0x00}),
		sec(6, cat([]byte{0x00, 0x00, 0x01, 0x00}, str("f"))),
		sec(8, []byte{0x00, 0x00, 0x00, 0x00, 0x00}),
		sec(11, cat([]byte{0x00}, str("run"), []byte{0x01, 0x00, 0x00})),
	)
}

// TestRetirePrivateMemory: an instance whose memory grew past three
// quarters of MemoryLimitPages is retired also when no core module exports
// that memory (overgrown listed only exported memories, so such an
// instance was pooled and reused until a call ran out of memory).
func TestRetirePrivateMemory(t *testing.T) {
	const pages = 16 // retired past 12
	p, err := New(context.Background(), privateMemoryComponent(13), "private.wasm", "", Options{CacheDir: t.TempDir(), MemoryLimitPages: pages})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if v, err := call(t, p, &fakeEnv{}, "run", map[string]any{}); err != nil || v != int64(7) {
		t.Fatalf("run: %v, %v", v, err)
	}
	select {
	case inst := <-p.pool:
		inst.close()
		t.Fatal("an instance whose private memory grew to 14 of 16 pages was pooled")
	default:
	}
}
