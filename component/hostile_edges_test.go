package component

import (
	"context"
	"encoding/hex"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// listResultComponent is a component exporting run: func() ->
// list<tuple<u8,u8,u8,u8>> whose core function returns a list of n
// elements (all zero) from a memory of pages pages.
func listResultComponent(n int, pages int) []byte {
	body := []byte{0x00, // no locals
		0x41, 0x00, 0x41, 0x10, 0x36, 0x02, 0x00} // i32.store [0] = 16 (list pointer)
	body = append(body, 0x41, 0x04, 0x41)
	body = appendSLEB(body, int64(n))
	body = append(body, 0x36, 0x02, 0x00, // i32.store [4] = n
		0x41, 0x00, 0x0b) // return pointer 0
	coreSec := func(id byte, b []byte) []byte { return append(append([]byte{id}, leb(len(b))...), b...) }
	core := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	core = append(core, coreSec(1, []byte{1, 0x60, 0, 1, 0x7f})...)
	core = append(core, coreSec(3, []byte{1, 0})...)
	core = append(core, coreSec(5, cat([]byte{1, 0x00}, leb(pages)))...)
	core = append(core, coreSec(7, cat([]byte{2}, str("f"), []byte{0x00, 0x00}, str("memory"), []byte{0x02, 0x00}))...)
	core = append(core, coreSec(10, cat([]byte{1}, leb(len(body)), body))...)
	return comp(
		sec(7, []byte{0x6f, 0x04, 0x7d, 0x7d, 0x7d, 0x7d}, []byte{0x70, 0x00}, []byte{0x40, 0x00, 0x00, 0x01}),
		sec(1, core),
		sec(2, []byte{0x00, 0x00, 0x00}),
		sec(6, cat([]byte{0x00, 0x00, 0x01, 0x00}, str("f")), cat([]byte{0x00, 0x02, 0x01, 0x00}, str("memory"))),
		sec(8, []byte{0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x02}),
		sec(11, cat([]byte{0x00}, str("run"), []byte{0x01, 0x00, 0x00})),
	)
}

func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// TestLiftedListHostMemory: a component returning
// list<tuple<u8,u8,u8,u8>> of 2.6 M elements (10 MiB of its memory) was
// within the lift budget, which counted guest bytes, and the host
// allocated about 30 times that to lift it and more to make its JSON. The
// budget now counts the host's representation: the call is refused as
// ProviderCrashed naming the budget, and the provider serves on.
func TestLiftedListHostMemory(t *testing.T) {
	const n = 2_600_000
	p, err := New(context.Background(), listResultComponent(n, n*4/65536+2), "biglist.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, err := call(t, p, &fakeEnv{}, "run", map[string]any{})
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("host allocated %d MiB", alloc>>20)
	if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("got %T %v, want ProviderCrashed naming the lift budget", v, err)
	}
	if alloc > 64<<20 {
		t.Fatalf("refusing the list allocated %d MiB", alloc>>20)
	}
	small, err := New(context.Background(), listResultComponent(1000, 1), "smalllist.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	v, err = call(t, small, &fakeEnv{}, "run", map[string]any{})
	if l, ok := v.([]any); err != nil || !ok || len(l) != 1000 {
		t.Fatalf("a small list: %T %v", v, err)
	}
}

// reallocReentryHex is a component (the WAT below, through `jco parse`)
// whose cabi_realloc calls the import aios:sdk/spaces.read, whose answer
// the host lowers through cabi_realloc again, nesting up to run's depth
// argument times.
//
//	(component
//	  (type $spaces-ty
//	    (instance
//	      (type (;0;) (list u8))
//	      (type (;1;) (result 0 (error string)))
//	      (type (;2;) (func (param "object-id" string) (result 1)))
//	      (export (;0;) "read" (func (type 2)))
//	    )
//	  )
//	  (import "aios:sdk/spaces@0.1.0" (instance $spaces (type $spaces-ty)))
//	  (core module $main
//	    (type (;0;) (func (param i32 i32 i32)))
//	    (import "aios:sdk/spaces@0.1.0" "read" (func $read (type 0)))
//	    (memory (export "memory") 2)
//	    (global $heap (mut i32) (i32.const 4096))
//	    (global $depth (mut i32) (i32.const 0))
//	    (global $limit (mut i32) (i32.const 1))
//	    (data (i32.const 0) "x")
//	    (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
//	      (local $p i32)
//	      (if (i32.lt_u (global.get $depth) (global.get $limit)) (then
//	        (global.set $depth (i32.add (global.get $depth) (i32.const 1)))
//	        (call $read (i32.const 0) (i32.const 1) (i32.const 64))
//	        (global.set $depth (i32.sub (global.get $depth) (i32.const 1)))))
//	      (local.set $p (i32.and (i32.add (global.get $heap) (i32.const 7)) (i32.const -8)))
//	      (global.set $heap (i32.add (local.get $p) (local.get 3)))
//	      (if (i32.gt_u (global.get $heap) (i32.const 120000)) (then (global.set $heap (i32.const 4096))))
//	      (local.get $p))
//	    (func (export "run") (param i32) (result i32)
//	      (global.set $limit (local.get 0))
//	      (call $read (i32.const 0) (i32.const 1) (i32.const 128))
//	      (i32.const 7))
//	  )
//	  (core module $shim
//	    (type (;0;) (func (param i32 i32 i32)))
//	    (table (;0;) 1 1 funcref)
//	    (export "0" (func 0))
//	    (export "$imports" (table 0))
//	    (func (;0;) (type 0) (param i32 i32 i32)
//	      local.get 0 local.get 1 local.get 2 i32.const 0 call_indirect (type 0))
//	  )
//	  (core instance $shim-inst (instantiate $shim))
//	  (alias core export $shim-inst "0" (core func $indirect-read))
//	  (core instance $spaces-core (export "read" (func $indirect-read)))
//	  (core instance $main-inst (instantiate $main (with "aios:sdk/spaces@0.1.0" (instance $spaces-core))))
//	  (alias core export $main-inst "memory" (core memory $memory))
//	  (alias core export $main-inst "cabi_realloc" (core func $realloc))
//	  (core module $fixup
//	    (type (;0;) (func (param i32 i32 i32)))
//	    (import "actual" "0" (func (;0;) (type 0)))
//	    (import "shim" "$imports" (table (;0;) 1 1 funcref))
//	    (elem (;0;) (i32.const 0) func 0)
//	  )
//	  (alias export $spaces "read" (func $read))
//	  (core func $lowered (canon lower (func $read) (memory $memory) (realloc $realloc) string-encoding=utf8))
//	  (core instance $actual (export "0" (func $lowered)))
//	  (core instance $fixup-inst (instantiate $fixup (with "actual" (instance $actual)) (with "shim" (instance $shim-inst))))
//	  (type $run-ty (func (param "depth" u32) (result u32)))
//	  (alias core export $main-inst "run" (core func $run-core))
//	  (func $run (type $run-ty) (canon lift (core func $run-core)))
//	  (export "run" (func $run))
//	)
const reallocReentryHex = "0061736d0d000100072501420401707d016a01000173014001096f626a6563742d69647300010400047265616401020a" +
	"1a01001561696f733a73646b2f73706163657340302e312e3005000196020061736d0100000001140360037f7f7f0060" +
	"047f7f7f7f017f60017f017f021e011561696f733a73646b2f73706163657340302e312e300472656164000003030201" +
	"0205030100020611037f014180200b7f0141000b7f0141010b071f03066d656d6f727902000c636162695f7265616c6c" +
	"6f6300010372756e00020a59024501017f23012302490440230141016a24014100410141c0001000230141016b24010b" +
	"230041076a4178712104200420036a2400230041c0a9074b044041802024000b20040b11002000240241004101418001" +
	"100041070b0b07010041000b01780034046e616d650005046d61696e0107010004726561640206010101040170071503" +
	"0004686561700105646570746802056c696d6974014d0061736d0100000001070160037f7f7f00030201000405017001" +
	"0101071002013000000824696d706f72747301000a0f010d0020002001200241001100000b000c046e616d6500050473" +
	"68696d0204010001000607010000010001300225020101047265616400000000011561696f733a73646b2f7370616365" +
	"7340302e312e301201061d0200020102066d656d6f7279000001020c636162695f7265616c6c6f63014a0061736d0100" +
	"000001070160037f7f7f00021f020661637475616c01300000047368696d0824696d706f727473017001010109070100" +
	"41000b0100000d046e616d6500060566697875700609010100000472656164080a01010000030300040100021a020101" +
	"013000020002020661637475616c1203047368696d1200070c014001056465707468790079060901000001020372756e" +
	"08060100000300010b0901000372756e01010000d2010e636f6d706f6e656e742d6e616d65012e000004000d696e6469" +
	"726563742d7265616401077265616c6c6f6302076c6f7765726564030872756e2d636f7265010b00020100066d656d6f" +
	"7279011600110300046d61696e01047368696d02056669787570013a00120500097368696d2d696e7374010b73706163" +
	"65732d636f726502096d61696e2d696e7374030661637475616c040a66697875702d696e7374010d0102000472656164" +
	"010372756e0115030200097370616365732d7479010672756e2d7479010a05010006737061636573"

// TestReallocCallsImport: a component whose cabi_realloc calls an
// import (the Canonical ABI forbids it: may_leave is false in realloc and
// post-return) must fail its call, not the host.
func TestReallocCallsImport(t *testing.T) {
	b, err := hex.DecodeString(reallocReentryHex)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), b, "reent.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, depth := range []int64{1, 1 << 30} {
		v, err := call(t, p, &fakeEnv{}, "run", map[string]any{"depth": depth})
		if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "cabi_realloc") {
			t.Fatalf("depth %d: got %v %v, want ProviderCrashed naming cabi_realloc", depth, v, err)
		}
	}
	// depth 0: realloc makes no call; the provider serves on.
	if v, err := call(t, p, &fakeEnv{}, "run", map[string]any{"depth": int64(0)}); err != nil || fmt.Sprint(v) != "7" {
		t.Fatalf("depth 0: %v %v", v, err)
	}
}

// selfLoweringHex is a component (the WAT below, through `jco parse`) that
// lowers its own lifted export g back into its core module: g(n) calls
// itself through the component boundary n times.
//
//	(component
//	  (core module $main
//	    (type (func (param i32) (result i32)))
//	    (import "x" "f" (func $f (type 0)))
//	    (func (export "g") (param i32) (result i32)
//	      (if (result i32) (i32.eqz (local.get 0))
//	        (then (i32.const 7))
//	        (else (call $f (i32.sub (local.get 0) (i32.const 1)))))))
//	  (core module $shim
//	    (type (func (param i32) (result i32)))
//	    (table 1 1 funcref)
//	    (export "0" (func 0))
//	    (export "$imports" (table 0))
//	    (func (type 0) (param i32) (result i32) local.get 0 i32.const 0 call_indirect (type 0)))
//	  (core instance $shim-inst (instantiate $shim))
//	  (alias core export $shim-inst "0" (core func $ind))
//	  (core instance $x (export "f" (func $ind)))
//	  (core instance $m (instantiate $main (with "x" (instance $x))))
//	  (type $gt (func (param "n" u32) (result u32)))
//	  (alias core export $m "g" (core func $gcore))
//	  (func $g (type $gt) (canon lift (core func $gcore)))
//	  (core func $glow (canon lower (func $g)))
//	  (core module $fixup
//	    (type (func (param i32) (result i32)))
//	    (import "actual" "0" (func (type 0)))
//	    (import "shim" "$imports" (table 1 1 funcref))
//	    (elem (i32.const 0) func 0))
//	  (core instance $actual (export "0" (func $glow)))
//	  (core instance (instantiate $fixup (with "actual" (instance $actual)) (with "shim" (instance $shim-inst))))
//	  (export "run" (func $g))
//	)
const selfLoweringHex = "0061736d0d000100014e0061736d0100000001060160017f017f02070101780166000003020100070501016700010a14" +
	"011200200045047f410705200041016b10000b0b0012046e616d650005046d61696e01040100016601480061736d0100" +
	"000001060160017f017f0302010004050170010101071002013000000824696d706f72747301000a0b01090020004100" +
	"1100000b000c046e616d650005047368696d020401000100060701000001000130020e02010101660000000001017812" +
	"010708014001016e790079060701000001020167080a0200000100000100000001490061736d0100000001060160017f" +
	"017f021f020661637475616c01300000047368696d0824696d706f72747301700101010907010041000b0100000d046e" +
	"616d650006056669787570021a020101013000020002020661637475616c1203047368696d12000b0901000372756e01" +
	"0000006b0e636f6d706f6e656e742d6e616d6501150000030003696e64010567636f72650204676c6f77011600110300" +
	"046d61696e01047368696d02056669787570011c00120400097368696d2d696e737401017802016d030661637475616c" +
	"010501010001670106030100026774"

// TestComponentReentered: a component calling its own export through
// the component boundary reentered wazero's call engine and recursed until
// the host's stack overflowed (the process died). The Canonical ABI
// refuses to reenter a component instance (wasmtime traps at n = 1): so
// does the host now.
func TestComponentReentered(t *testing.T) {
	b, err := hex.DecodeString(selfLoweringHex)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), b, "self.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, n := range []int64{1, 2, 1_000_000} {
		v, err := call(t, p, &fakeEnv{}, "run", map[string]any{"n": n})
		if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "may not be reentered") {
			t.Fatalf("n=%d: got %v %v, want ProviderCrashed saying the instance may not be reentered", n, v, err)
		}
	}
	if v, err := call(t, p, &fakeEnv{}, "run", map[string]any{"n": int64(0)}); err != nil || fmt.Sprint(v) != "7" {
		t.Fatalf("n=0: %v %v", v, err)
	}
}

// TestDiscardedInstancesFreed: every component instance thrown away
// (a trap, a timeout, a full pool) leaked its linear memory: the compiled
// host module of its host functions was never closed, and the runtime kept
// it and, through the functions, the instance. 30 calls that trap, each
// in a fresh instance of 10 MiB of memory, kept 300 MiB.
func TestDiscardedInstancesFreed(t *testing.T) {
	const n = 2_600_000 // 10 MiB of memory; the list is refused (the lift budget)
	p, err := New(context.Background(), listResultComponent(n, n*4/65536+2), "biglist.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	for range 30 {
		if _, err := call(t, p, &fakeEnv{}, "run", map[string]any{}); abi.CodeOf(err) != abi.ProviderCrashed {
			t.Fatalf("want ProviderCrashed, got %v", err)
		}
	}
	if grew := int64(heap()) - int64(before); grew > 40<<20 {
		t.Fatalf("30 discarded instances of 10 MiB of memory each left the heap %d MiB larger", grew>>20)
	}
}

// handleHoarderHex is a component (the WAT below, through `jco parse`)
// whose run(n) asks wasi:cli/stdout for its stream n times and drops none.
//
//	(component
//	  (type $stdout-ty
//	    (instance
//	      (export (;0;) "output-stream" (type (sub resource)))
//	      (type (;1;) (own 0))
//	      (type (;2;) (func (result 1)))
//	      (export (;0;) "get-stdout" (func (type 2)))
//	    )
//	  )
//	  (import "wasi:cli/stdout@0.2.0" (instance $stdout (type $stdout-ty)))
//	  (alias export $stdout "get-stdout" (func $get))
//	  (core func $get-low (canon lower (func $get)))
//	  (core instance $imp (export "get-stdout" (func $get-low)))
//	  (core module $main
//	    (import "wasi:cli/stdout@0.2.0" "get-stdout" (func $get (result i32)))
//	    (func (export "run") (param $n i32) (result i32)
//	      (local $i i32) (local $h i32)
//	      (block $done
//	        (loop $l
//	          (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
//	          (local.set $h (call $get))
//	          (local.set $i (i32.add (local.get $i) (i32.const 1)))
//	          (br $l)))
//	      (local.get $h)))
//	  (core instance $m (instantiate $main (with "wasi:cli/stdout@0.2.0" (instance $imp))))
//	  (type $rt (func (param "n" u32) (result u32)))
//	  (alias core export $m "run" (core func $run-core))
//	  (func $run (type $rt) (canon lift (core func $run-core)))
//	  (export "run" (func $run))
//	)
const handleHoarderHex = "0061736d0d000100072c01420404000d6f75747075742d73747265616d0301016900014000000104000a6765742d7374" +
	"646f757401020a1a010015776173693a636c692f7374646f757440302e322e300500060f010100000a6765742d737464" +
	"6f75740805010100000002100101010a6765742d7374646f75740000019d010061736d01000000010a026000017f6001" +
	"7f017f02240115776173693a636c692f7374646f757440302e322e300a6765742d7374646f7574000003020101070701" +
	"0372756e00010a22012001027f02400340200120004f0d0110002102200141016a21010c000b0b20020b0030046e616d" +
	"650005046d61696e0106010003676574020c01010300016e010169020168030c0101020004646f6e6501016c021c0100" +
	"000115776173693a636c692f7374646f757440302e322e3012000708014001016e790079060901000001010372756e08" +
	"060100000100010b0901000372756e010100006c0e636f6d706f6e656e742d6e616d65011600000200076765742d6c6f" +
	"77010872756e2d636f7265010900110100046d61696e010b0012020003696d7001016d010c0102000367657401037275" +
	"6e0111030200097374646f75742d747901027274010a050100067374646f7574"

// TestHandleTableBounded: the host's resource handle table of an
// instance had no bound: a guest taking get-stdout in a loop grew it by 16
// bytes a handle, 10 M handles in a 10-second call, kept across the calls
// of a pooled instance.
func TestHandleTableBounded(t *testing.T) {
	b, err := hex.DecodeString(handleHoarderHex)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), b, "hoard.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if v, err := call(t, p, &fakeEnv{}, "run", map[string]any{"n": int64(100)}); err != nil {
		t.Fatalf("100 handles: %v %v", v, err)
	}
	v, err := call(t, p, &fakeEnv{}, "run", map[string]any{"n": int64(maxHandles + 10)})
	if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "resource handles") {
		t.Fatalf("%d handles: got %v %v, want ProviderCrashed naming the handle limit", maxHandles+10, v, err)
	}
	if v, err := call(t, p, &fakeEnv{}, "run", map[string]any{"n": int64(1)}); err != nil {
		t.Fatalf("after: %v %v", v, err)
	}
}
