package component

import (
	"context"
	"strings"
	"testing"
)

// TestLiftOfLoweredFunction: a canon lift whose core function is
// itself a lowered function (here the built-in context.get, of the core
// type () -> i32 that func() -> u32 wants) is refused at load, but the
// error said "a lowered host function used as realloc or post-return is
// not supported", though the component uses none: it must say what is
// lowered, the lifted core function.
func TestLiftOfLoweredFunction(t *testing.T) {
	b := comp(
		sec(8, []byte{0x0a, 0x7f, 0x00}),
		sec(7, []byte{0x40, 0x00, 0x00, 0x79}),
		sec(8, []byte{0x00, 0x00, 0x00, 0x00, 0x00}),
		sec(11, cat([]byte{0x00}, str("f"), []byte{0x01, 0x00, 0x00})),
	)
	p, err := New(context.Background(), b, "liftlower.wasm", "", Options{CacheDir: t.TempDir()})
	if err == nil {
		p.Close()
		t.Fatal("loaded")
	}
	msg := err.Error()
	if strings.Contains(msg, "realloc") || strings.Contains(msg, "post-return") || !strings.Contains(msg, "export f: core function") || !strings.Contains(msg, "lowered") {
		t.Fatalf("err = %v, want it to say the export's core function is a lowered one", err)
	}
}
