package component

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/wit"
)

// TestInspectSharedTypesUsed: the WIT `inspect` printed for a component
// whose interfaces share types (wasi:cli/stdout's output-stream is
// wasi:io/streams') repeated each shared type in every interface naming
// it; a resource was printed with its methods each time, and those name
// types of the defining interface only, so the WIT did not parse ("type
// `stream-error` does not exist"). A type an imported interface defines is
// now brought into the others with `use`, as WIT writes it, and the WIT
// parses again.
func TestInspectSharedTypesUsed(t *testing.T) {
	in, err := Inspect(context.Background(), sample(t, "kitchen"), "kitchen.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(in.WIT, "resource output-stream {"); n != 1 {
		t.Errorf("resource output-stream defined %d times:\n%s", n, in.WIT)
	}
	for _, w := range []string{"use wasi:io/streams@0.2.12.{output-stream};", "transform: func(item: item) -> result<item, string>;"} {
		if !strings.Contains(in.WIT, w) {
			t.Errorf("WIT lacks %q:\n%s", w, in.WIT)
		}
	}
	if _, err := wit.ParseSource("kitchen.wit", in.WIT, wit.Options{}); err != nil {
		t.Errorf("printed WIT does not parse: %v\n%s", err, in.WIT)
	}
}

// worldUseHex is a component (`jco embed --dummy` + `jco new`) of
//
//	package a:wu@1.0.0;
//	interface types { record point { x: u32 } }
//	world w {
//	  use types.{point};
//	  export f: func() -> point;
//	}
const worldUseHex = "0061736d0d0001000714014202017201017879040005706f696e740300000a15010010613a77752f747970657340312e302e300500060a0103000005706f696e740a0b010005706f696e7403000101c1010061736d010000000114046000017f60017f0060047f7f7f7f017f60000003050400010203050301000007530509636d333270327c7c6600000e636d333270327c7c665f706f737400010d636d333270325f6d656d6f727902000e636d333270325f7265616c6c6f63000211636d333270325f696e697469616c697a6500030a0f040300000b02000b0300000b02000b002f0970726f647563657273010c70726f6365737365642d6279010d7769742d636f6d706f6e656e7407302e3235382e30020401000000061301000201000d636d333270325f6d656d6f7279015e0061736d01000000010401600000021a01046d61696e11636d333270325f696e697469616c697a650000080100002f0970726f647563657273010c70726f6365737365642d6279010d7769742d636f6d706f6e656e7407302e3235382e30020b01000101046d61696e1200070501400000020622020000010009636d333270327c7c66000001000e636d333270327c7c665f706f7374080801000000010501030b070100016601000000cb010e636f6d706f6e656e742d6e616d65011e0000020009636d333270327c7c66010e636d333270327c7c665f706f7374010b00020100066d656d6f7279011e00110200046d61696e01137769742d636f6d706f6e656e742d6669787570011000120200046d61696e01056669787570011405010010613a77752f747970657340312e302e300108010200016601016601250303001374792d613a77752f747970657340312e302e300105706f696e740205706f696e74011405010010613a77752f747970657340312e302e30002f0970726f647563657273010c70726f6365737365642d6279010d7769742d636f6d706f6e656e7407302e3235382e30"

// TestInspectWorldUseKept: a type the world brings in with use was
// printed as a definition of its own in the world ("record point { … }"
// beside types' point), a resource so with its methods; it is printed as
// the use it is.
func TestInspectWorldUseKept(t *testing.T) {
	b, err := hex.DecodeString(worldUseHex)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Inspect(context.Background(), b, "worlduse.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(in.WIT, "record point {"); n != 1 {
		t.Errorf("record point defined %d times:\n%s", n, in.WIT)
	}
	if !strings.Contains(in.WIT, "use a:wu/types@1.0.0.{point};") {
		t.Errorf("WIT lacks the world's use:\n%s", in.WIT)
	}
	if _, err := wit.ParseSource("worlduse.wit", in.WIT, wit.Options{}); err != nil {
		t.Errorf("printed WIT does not parse: %v\n%s", err, in.WIT)
	}
}
