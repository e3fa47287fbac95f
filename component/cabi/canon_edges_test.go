package cabi

import (
	"testing"

	"github.com/aios-host/aios-host/wit"
)

// TestNoMemoryIsATrap: a Context without memory (a canon lift or
// lower without the memory option) must report a trap when a value needs
// memory, never panic: Store and allocate called Mem.Size on a nil Memory
// (a component with realloc but no memory got "runtime error: invalid
// memory address or nil pointer dereference" as its error).
func TestNoMemoryIsATrap(t *testing.T) {
	m := &testMem{b: make([]byte, 64), next: 8}
	c := NewCompiler()
	str, err := c.Compile(prim(wit.KindString))
	if err != nil {
		t.Fatal(err)
	}
	u32, _ := c.Compile(prim(wit.KindU32))
	for name, f := range map[string]func(cx *Context) error{
		"store u32":    func(cx *Context) error { return cx.Store(u32, uint64(1), 0) },
		"store string": func(cx *Context) error { return cx.Store(str, "x", 0) },
		"lower string": func(cx *Context) error { _, err := cx.lowerFlat(str, "x", nil); return err },
	} {
		cx := &Context{Realloc: m.realloc}
		cx.Reset()
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", name, r)
				}
			}()
			err = f(cx)
		}()
		if err != nil && !IsTrap(err) {
			t.Errorf("%s: %v is not a trap", name, err)
		} else if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
