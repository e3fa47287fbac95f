package component

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// nestedReexport is twoFuncsComponent (funcs 0 = a, 1 = b, both func() ->
// u32) with an inline instance 0 exporting a as "x", a nested component
// that imports "f" and "g" (both func() -> u32) and exports its func 0
// (its import "f") as "h", instantiated with fArg and gArg (sort and
// index), and h exported at the top level.
func nestedReexport(fArg, gArg []byte) []byte {
	return nestedWithArgs(cat([]byte{0x02}, str("f"), fArg, str("g"), gArg))
}

// nestedWithArgs is nestedReexport instantiated with args (their count
// first, then name and sort and index of each).
func nestedWithArgs(args []byte) []byte {
	nested := comp(
		sec(7, []byte{0x40, 0x00, 0x00, 0x79}),
		sec(10, cat([]byte{0x00}, str("f"), []byte{0x01, 0x00}), cat([]byte{0x00}, str("g"), []byte{0x01, 0x00})),
		sec(11, cat([]byte{0x00}, str("h"), []byte{0x01, 0x00, 0x00})),
	)
	return twoFuncsComponent(
		coreSec(4, nested),
		sec(5,
			cat([]byte{0x01, 0x01, 0x00}, str("x"), []byte{0x01, 0x00}),
			cat([]byte{0x00, 0x00}, args)),
		sec(6, cat([]byte{0x01, 0x00, 0x01}, str("h"))),
		sec(11, cat([]byte{0x00}, str("h"), []byte{0x01, 0x02, 0x00})),
	)
}

// TestNestedArgumentSort: an argument of a nested component's
// instantiation went to the index space of its own sort, whatever the
// sort of the import it satisfies. Given an instance for its function
// import "f" and b for "g", the nested component's func 0, its import "f",
// was b: its export h, which re-exports "f", ran b and answered 2, and a
// later index of the instance space pointed at the wrong instance. The
// load must fail naming the import and both sorts.
func TestNestedArgumentSort(t *testing.T) {
	funcA, funcB, inst0 := []byte{0x01, 0x00}, []byte{0x01, 0x01}, []byte{0x05, 0x00}
	p, err := New(context.Background(), nestedReexport(inst0, funcB), "nested.wasm", "", Options{CacheDir: t.TempDir()})
	if err == nil {
		v, cerr := call(t, p, &fakeEnv{}, "h", nil)
		p.Close()
		t.Fatalf("loaded; h() = %v %v", v, cerr)
	}
	if !strings.Contains(err.Error(), `import "f" is of sort func`) || !strings.Contains(err.Error(), "sort instance") {
		t.Fatalf("err = %v, want it to name the import \"f\", its sort and the argument's", err)
	}
	// Given a for "f", h is a.
	p, err = New(context.Background(), nestedReexport(funcA, funcB), "nested.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if v, err := call(t, p, &fakeEnv{}, "h", nil); err != nil || fmt.Sprint(v) != "1" {
		t.Fatalf("h() = %v %v, want 1", v, err)
	}
}
