package component

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// callerModule imports "bag" "f": () -> i32 and exports g, which returns
// what f returns.
func callerModule() []byte {
	return cat([]byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00},
		coreSec(1, []byte{0x01, 0x60, 0x00, 0x01, 0x7f}),
		coreSec(2, cat([]byte{0x01}, str("bag"), str("f"), []byte{0x00, 0x00})),
		coreSec(3, []byte{0x01, 0x00}),
		coreSec(7, cat([]byte{0x01}, str("g"), []byte{0x00, 0x01})),
		coreSec(10, []byte{0x01, 0x04, 0x00, 0x10, 0x00, 0x0b}))
}

// bagsComponent is twoFuncsComponent (core funcs 0 = a, returning 1, and
// 1 = b, returning 2) with callerModule instantiated with the core
// instances given (core instance 1 onward: inline bags, then the
// instantiation), its g lifted as func() -> u32 and exported as "g".
func bagsComponent(coreInsts ...[]byte) []byte {
	return twoFuncsComponent(
		sec(1, callerModule()),
		sec(2, coreInsts...),
		sec(6, cat([]byte{0x00, 0x00, 0x01, byte(len(coreInsts))}, str("g"))),
		sec(8, []byte{0x00, 0x00, 0x02, 0x00, 0x00}),
		sec(11, cat([]byte{0x00}, str("g"), []byte{0x01, 0x02, 0x00})),
	)
}

// bag is an inline core instance exporting core funcs under names.
func bag(items ...any) []byte {
	b := []byte{0x01, byte(len(items) / 2)}
	for i := 0; i < len(items); i += 2 {
		b = cat(b, str(items[i].(string)), []byte{0x00, byte(items[i+1].(int))})
	}
	return b
}

// instantiate instantiates core module 1 (callerModule) with the
// arguments: name, core instance index, …
func instantiate(args ...any) []byte {
	b := []byte{0x00, 0x01, byte(len(args) / 2)}
	for i := 0; i < len(args); i += 2 {
		b = cat(b, str(args[i].(string)), []byte{0x12, byte(args[i+1].(int))})
	}
	return b
}

// TestDuplicateArgumentNames: the names of an inline core
// instance's exports and of an instantiation's arguments (core or
// component) must be unique (wasmparser refuses the binary). The linker
// kept the last of two equal ones in a map, silently: a module importing
// "bag" "f" from a bag exporting a and then b as "f", or instantiated with
// "bag" given twice, called b; a nested component given "f" twice got the
// second. Each must fail the load naming the name.
func TestDuplicateArgumentNames(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"core inline export", bagsComponent(bag("f", 0, "f", 1), instantiate("bag", 1)), `core instance export name "f" is given twice`},
		{"core instantiation argument", bagsComponent(bag("f", 0), bag("f", 1), instantiate("bag", 1, "bag", 2)), `instantiation argument "bag" is given twice`},
		{"component instantiation argument", nestedWithArgs(cat([]byte{0x03}, str("f"), []byte{0x01, 0x00}, str("f"), []byte{0x01, 0x01}, str("g"), []byte{0x01, 0x00})),
			`instantiation argument "f" is given twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(context.Background(), c.b, "dupargs.wasm", "", Options{CacheDir: t.TempDir()})
			if err == nil {
				var got []string
				for _, d := range p.Describe().Tools {
					v, err := call(t, p, &fakeEnv{}, d.Name, nil)
					got = append(got, fmt.Sprintf("%s() = %v %v", d.Name, v, err))
				}
				p.Close()
				t.Fatalf("loaded: %s", strings.Join(got, "; "))
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %s", err, c.want)
			}
		})
	}
	// Distinct names: g calls the one f given.
	for want, b := range map[string][]byte{
		"1": bagsComponent(bag("f", 0, "h", 1), instantiate("bag", 1)),
		"2": bagsComponent(bag("f", 1), instantiate("bag", 1)),
	} {
		p, err := New(context.Background(), b, "args.wasm", "", Options{CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		v, err := call(t, p, &fakeEnv{}, "g", nil)
		p.Close()
		if err != nil || fmt.Sprint(v) != want {
			t.Errorf("g() = %v %v, want %s", v, err, want)
		}
	}
}
