package component

import (
	"bytes"
	"context"
	"encoding/hex"
	"log/slog"
	"strings"
	"testing"
)

// badSecondModuleHex is `jco parse` of a component whose first core module
// is valid and whose second is not (it loads from a memory it does not
// have):
//
//	(component
//	  (import "wasi:cli/environment@0.2.99" (instance $env (export "get-arguments" (func (result (list string))))))
//	  (core module $m0 (memory (export "mem") 1) (func (export "realloc") (param i32 i32 i32 i32) (result i32) i32.const 1024))
//	  …
//	  (core module $m (import "e" "ga" (func $ga (param i32)))
//	    (func (export "run") (result i32) (call $ga (i32.const 8)) (i32.load (i32.const 12))))
//	  …)
const badSecondModuleHex = "0061736d0d000100071d014203017073014000000004000d6765742d617267756d656e747301010a2001001b776173693a636c692f656e7669726f6e6d656e7440302e322e3939050001440061736d0100000001090160047f7f7f7f017f030201000503010001071102036d656d0200077265616c6c6f6300000a070105004180080b000a046e616d650003026d3002040100000006260300020100036d656d00000100077265616c6c6f630100000d6765742d617267756d656e74730809010100000203000400014b0061736d0100000001090260017f006000017f02080101650267610000030201010707010372756e00010a0d010b0041081000410c2802000b0010046e616d650002016d01050100026761020f02010102676100010001010165120107050140000079060901000001020372756e08060100000200010b0901000372756e01010000530e636f6d706f6e656e742d6e616d65010c000002000272610103676163010800020100036d656d010a00110200026d3001016d010d001203000269300101650201690106010100026761010705010003656e76"

// TestFailedLoadLeavesNoUnsealedCacheEntry: when a later core module of a
// component failed to compile, the entries the compile cache had got for
// the modules before it were left unsealed, so every following load of the
// file warned that compile cache entries "were damaged (or not sealed)"
// and removed them, sending its author after a damaged cache rather than
// their module. The entries written are sealed even when the load fails;
// the load still fails naming the module, and nothing is removed as damaged.
func TestFailedLoadLeavesNoUnsealedCacheEntry(t *testing.T) {
	b, err := hex.DecodeString(badSecondModuleHex)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range 3 {
		var logs bytes.Buffer
		p, err := New(context.Background(), b, "bad.wasm", "", Options{CacheDir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err == nil {
			p.Close()
			t.Fatal("loaded")
		}
		if !strings.Contains(err.Error(), "core module of instance 2") {
			t.Errorf("load %d: %v, want it to name core module of instance 2", i, err)
		}
		if strings.Contains(logs.String(), "damaged") {
			t.Errorf("load %d logged: %s", i, logs.String())
		}
	}
}
