//go:build wasmtime

package wasmtime

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/runtimes/wasm/instrument"
)

// uleb is x in unsigned LEB128 (Go's uvarint is the same encoding).
func uleb(x uint64) []byte { return binary.AppendUvarint(nil, x) }

func section(id byte, body []byte) []byte {
	return append(append([]byte{id}, uleb(uint64(len(body)))...), body...)
}

// growingComponent is a component whose one core module's start function
// grows its table by n elements and traps when the growth is refused.
func growingComponent(n uint64) []byte {
	code := []byte{0x00, 0xd0, 0x70, 0x41} // no locals; ref.null func; i32.const n
	code = append(code, sleb(int64(n))...)
	code = append(code, 0xfc, 0x0f, 0x00, // table.grow 0
		0x41, 0x7f, 0x46, // i32.const -1; i32.eq
		0x04, 0x40, 0x00, 0x0b, // if unreachable end
		0x0b)
	core := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	core = append(core, section(1, []byte{1, 0x60, 0, 0})...)       // type () -> ()
	core = append(core, section(3, []byte{1, 0})...)                // one function of type 0
	core = append(core, section(4, []byte{1, 0x70, 0x00, 0x01})...) // table funcref min 1
	core = append(core, section(8, []byte{0})...)                   // start: function 0
	body := append(uleb(uint64(len(code))), code...)                //
	core = append(core, section(10, append([]byte{1}, body...))...) // code
	comp := []byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00}  // component preamble
	comp = append(comp, section(1, core)...)                        // core module
	comp = append(comp, section(2, []byte{1, 0x00, 0x00, 0x00})...) // core instance: instantiate module 0, no args
	return comp
}

// sleb is x in signed LEB128.
func sleb(x int64) []byte {
	var out []byte
	for {
		b := byte(x & 0x7f)
		x >>= 7
		if x == 0 && b&0x40 == 0 || x == -1 && b&0x40 != 0 {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}

// TestComponentTablesBounded: a component's tables grow at most to
// instrument.MaxTableElements each on wasmtime too (its store's limiter),
// as core modules' do; a growth within it works.
func TestComponentTablesBounded(t *testing.T) {
	l := newLoader(t, Options{})
	try := func(n uint64) error {
		p := &Provider{l: l, name: "grow.wasm", pool: make(chan *instance, 1)}
		defer p.free()
		var err error
		if p.comp, err = l.compile(growingComponent(n)); err != nil {
			t.Fatalf("compile: %v", err)
		}
		if p.linker, err = newLinker(l.engine); err != nil {
			t.Fatal(err)
		}
		inst, err := p.newInstance(context.Background(), time.Now().Add(loadStartTimeout))
		if err == nil {
			inst.free()
		}
		return err
	}
	if err := try(1000); err != nil {
		t.Fatalf("growing a table by 1000 elements: %v", err)
	}
	err := try(instrument.MaxTableElements)
	if err == nil {
		t.Fatalf("a table grew past %d elements", instrument.MaxTableElements)
	}
	if !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("growth past the limit: %v, want the guest's trap after table.grow returned -1", err)
	}
}
