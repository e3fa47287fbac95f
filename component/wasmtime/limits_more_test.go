//go:build wasmtime

package wasmtime

import (
	"context"
	"testing"
	"time"
)

// memoriesComponent is a component that instantiates one core module
// k times; each instance has a memory of its own, which its start
// function grows by pages and then touches page by page (so the host
// commits it), trapping when the growth is refused.
func memoriesComponent(k int, pages int64) []byte {
	code := []byte{0x01, 0x01, 0x7f} // one local i32
	code = append(code, 0x41)
	code = append(code, sleb(pages)...)
	code = append(code, 0x40, 0x00, // memory.grow 0
		0x41, 0x7f, 0x46, // i32.const -1; i32.eq
		0x04, 0x40, 0x00, 0x0b, // if unreachable end
		0x02, 0x40, // block
		0x03, 0x40, // loop
		0x20, 0x00, 0x41) // local.get 0; i32.const pages
	code = append(code, sleb(pages)...)
	code = append(code, 0x4f, 0x0d, 0x01, // i32.ge_u; br_if 1
		0x20, 0x00, 0x41, 0x10, 0x74, // local.get 0; i32.const 16; i32.shl
		0x41, 0x01, 0x3a, 0x00, 0x00, // i32.const 1; i32.store8
		0x20, 0x00, 0x41, 0x01, 0x6a, 0x21, 0x00, // i += 1
		0x0c, 0x00, // br 0
		0x0b, 0x0b, // end loop, end block
		0x0b)
	core := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	core = append(core, section(1, []byte{1, 0x60, 0, 0})...) // type () -> ()
	core = append(core, section(3, []byte{1, 0})...)          // one function of type 0
	core = append(core, section(5, []byte{1, 0x00, 0x00})...) // memory min 0
	core = append(core, section(8, []byte{0})...)             // start: function 0
	body := append(uleb(uint64(len(code))), code...)
	core = append(core, section(10, append([]byte{1}, body...))...)
	comp := []byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00}
	comp = append(comp, section(1, core)...)
	insts := uleb(uint64(k))
	for range k {
		insts = append(insts, 0x00, 0x00, 0x00) // instantiate module 0, no args
	}
	comp = append(comp, section(2, insts)...)
	return comp
}

// TestComponentMemoriesBounded (found by a probe, fixed; the fault as it was): MemoryLimitPages is documented as
// capping "each instance's linear memories", but the store limiter bounds
// each memory alone and leaves the number of memories at wasmtime's
// default (10,000): a component that instantiates one small core module
// many times gets that many memories, each up to the limit. Here 64
// memories of 16 pages each (64 MiB, all touched) in an instance whose
// limit is 16 pages (1 MiB); the default 256 MiB limit would let one
// instance hold gigabytes the same way (the tables' count got a cap,
// maxTables; memories' did not).
func TestComponentMemoriesBounded(t *testing.T) {
	const limit = 16
	l := newLoader(t, Options{MemoryLimitPages: limit})
	p := &Provider{l: l, name: "mems.wasm", pool: make(chan *instance, 1)}
	defer p.free()
	var err error
	if p.comp, err = l.compile(memoriesComponent(64, limit)); err != nil {
		t.Fatalf("compile: %v", err)
	}
	if p.linker, err = newLinker(l.engine); err != nil {
		t.Fatal(err)
	}
	// Sanity: one memory of the limit's size is allowed.
	one := &Provider{l: l, name: "one.wasm", pool: make(chan *instance, 1)}
	defer one.free()
	if one.comp, err = l.compile(memoriesComponent(1, limit)); err != nil {
		t.Fatalf("compile: %v", err)
	}
	if one.linker, err = newLinker(l.engine); err != nil {
		t.Fatal(err)
	}
	inst, err := one.newInstance(context.Background(), time.Now().Add(loadStartTimeout))
	if err != nil {
		t.Fatalf("one memory of %d pages: %v", limit, err)
	}
	inst.free()
	// Sanity: one memory past the limit traps (the start function ran).
	over := &Provider{l: l, name: "over.wasm", pool: make(chan *instance, 1)}
	defer over.free()
	if over.comp, err = l.compile(memoriesComponent(1, limit+1)); err != nil {
		t.Fatalf("compile: %v", err)
	}
	if over.linker, err = newLinker(l.engine); err != nil {
		t.Fatal(err)
	}
	if inst, err := over.newInstance(context.Background(), time.Now().Add(loadStartTimeout)); err == nil {
		inst.free()
		t.Fatalf("a memory grew past %d pages: the probe component does not grow its memory", limit)
	}
	inst, err = p.newInstance(context.Background(), time.Now().Add(loadStartTimeout))
	if err == nil {
		inst.free()
		t.Fatalf("an instance with MemoryLimitPages %d (%d KiB) held 64 memories of %d pages each (%d MiB, every page touched)",
			limit, limit*64, limit, 64*limit*64/1024)
	}
}
