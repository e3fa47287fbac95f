package component

import (
	"context"
	"encoding/hex"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
)

// sdkBadHex is this component (through `jco parse`): run(op, p, n, ret)
// calls aios:sdk/spaces.read (op 0, result at 64; op 3, result at the
// unaligned 65531), spaces.write (op 1) or tools.call-tool (op 2) with the
// string at [p, p+n), its cabi_realloc returning ret.
//
//	(component
//	  (type $spaces-ty (instance
//	    (type (list u8))
//	    (type (result 0 (error string)))
//	    (type (func (param "object-id" string) (result 1)))
//	    (export "read" (func (type 2)))
//	    (type (result string (error string)))
//	    (type (func (param "space" string) (param "data" 0) (result 3)))
//	    (export "write" (func (type 4)))))
//	  (import "aios:sdk/spaces@0.1.0" (instance $spaces (type $spaces-ty)))
//	  (type $tools-ty (instance
//	    (type (result string (error string)))
//	    (type (func (param "name" string) (param "params-json" string) (result 0)))
//	    (export "call-tool" (func (type 1)))))
//	  (import "aios:sdk/tools@0.1.0" (instance $tools (type $tools-ty)))
//	  (core module $libc
//	    (memory (export "mem") 1)
//	    (global $ret (export "ret") (mut i32) (i32.const 8192))
//	    (func (export "realloc") (param i32 i32 i32 i32) (result i32) (global.get $ret)))
//	  (core instance $libc (instantiate $libc))
//	  (alias core export $libc "mem" (core memory $mem))
//	  (alias core export $libc "realloc" (core func $realloc))
//	  (alias export $spaces "read" (func $readf))
//	  (alias export $spaces "write" (func $writef))
//	  (alias export $tools "call-tool" (func $callf))
//	  (core func $readc (canon lower (func $readf) (memory $mem) (realloc $realloc) string-encoding=utf8))
//	  (core func $writec (canon lower (func $writef) (memory $mem) (realloc $realloc) string-encoding=utf8))
//	  (core func $callc (canon lower (func $callf) (memory $mem) (realloc $realloc) string-encoding=utf8))
//	  (core module $m
//	    (import "libc" "mem" (memory 1))
//	    (import "libc" "ret" (global $ret (mut i32)))
//	    (import "sdk" "read" (func $read (param i32 i32 i32)))
//	    (import "sdk" "write" (func $write (param i32 i32 i32 i32 i32)))
//	    (import "sdk" "call" (func $call (param i32 i32 i32 i32 i32)))
//	    (data (i32.const 16) "o1")
//	    ;; op 0: read(ptr,len) with realloc returning ret; returns the result area address 64
//	    (func (export "run") (param $op i32) (param $p i32) (param $n i32) (param $ret i32) (result i32)
//	      (global.set $ret (local.get $ret))
//	      (if (i32.eq (local.get $op) (i32.const 0)) (then (call $read (local.get $p) (local.get $n) (i32.const 64))))
//	      (if (i32.eq (local.get $op) (i32.const 1)) (then (call $write (local.get $p) (local.get $n) (local.get $p) (local.get $n) (i32.const 64))))
//	      (if (i32.eq (local.get $op) (i32.const 2)) (then (call $call (local.get $p) (local.get $n) (local.get $p) (local.get $n) (i32.const 64))))
//	      (if (i32.eq (local.get $op) (i32.const 3)) (then (call $read (local.get $p) (local.get $n) (i32.const 65531))))
//	      (i32.load (i32.const 64))))
//	  (core instance $i (instantiate $m (with "libc" (instance $libc))
//	     (with "sdk" (instance (export "read" (func $readc)) (export "write" (func $writec)) (export "call" (func $callc))))))
//	  (type $t (func (param "op" u32) (param "p" u32) (param "n" u32) (param "ret" u32) (result u32)))
//	  (alias core export $i "run" (core func $run))
//	  (func (export "run") (type $t) (canon lift (core func $run)))
//	)
const sdkBadHex = "0061736d0d000100074701420701707d016a01000173014001096f626a6563742d6964730001040004726561640102016a01" +
	"730173014002057370616365730464617461000003040005777269746501040a1a01001561696f733a73646b2f7370616365" +
	"7340302e312e300500072f014203016a01730173014002046e616d65730b706172616d732d6a736f6e73000004000963616c" +
	"6c2d746f6f6c01010a1901001461696f733a73646b2f746f6f6c7340302e312e300501015d0061736d010000000109016004" +
	"7f7f7f7f017f0302010005030100010608017f014180c0000b071703036d656d0200037265740300077265616c6c6f630000" +
	"0a0601040023000b0014046e616d650005046c696263070601000372657402040100000006330500020100036d656d000001" +
	"00077265616c6c6f6301000004726561640100000577726974650100010963616c6c2d746f6f6c081c030100000303000400" +
	"00010001030300040000010002030300040000018f020061736d0100000001170360037f7f7f0060057f7f7f7f7f0060047f" +
	"7f7f7f017f023b05046c696263036d656d020001046c69626303726574037f010373646b047265616400000373646b057772" +
	"69746500010373646b0463616c6c0001030201020707010372756e00030a5b01590020032400200041004604402001200241" +
	"c00010000b20004101460440200120022001200241c00010010b20004102460440200120022001200241c00010020b200041" +
	"034604402001200241fbff0310000b41c0002802000b0b08010041100b026f31003b046e616d650002016d01140300047265" +
	"616401057772697465020463616c6c021201030400026f7001017002016e0303726574070601000372657402290201030472" +
	"656164000105777269746500020463616c6c0003000102046c69626312000373646b12010714014004026f7079017079016e" +
	"7903726574790079060901000001020372756e08060100000400020b0901000372756e01030000a7010e636f6d706f6e656e" +
	"742d6e616d65012700000500077265616c6c6f63010572656164630206777269746563030563616c6c63040372756e010800" +
	"020100036d656d010c00110200046c69626301016d010c00120200046c696263020169011801030005726561646601067772" +
	"69746566020563616c6c66011a030300097370616365732d74790108746f6f6c732d74790201740111050200067370616365" +
	"730105746f6f6c73"

// TestImportErrorsNameTheImport: a guest that passes aios:sdk
// functions bad arguments (a string out of bounds, an enum discriminant
// out of range) or whose realloc gives the host's answer a place out of
// bounds failed with "tool run: result.ok: realloc returned [65534,
// 65539), …" or "tool run: level: discriminant 9 …", which did not say
// which import the guest had called. The error names it now, and the
// provider serves on.
func TestImportErrorsNameTheImport(t *testing.T) {
	p := loadHexComponent(t, sdkBadHex, "sdkbad.wasm")
	env := &fakeEnv{objects: map[string][]byte{"o1": []byte("hello")}}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"op": 0, "p": 16, "n": 2, "ret": 65534}, "import aios:sdk/spaces@0.1.0#read: result.ok: realloc returned [65534, 65539)"},
		{map[string]any{"op": 0, "p": 65535, "n": 2, "ret": 8192}, "import aios:sdk/spaces@0.1.0#read: object-id"},
		{map[string]any{"op": 0, "p": 0, "n": int64(1)<<32 - 1, "ret": 8192}, "import aios:sdk/spaces@0.1.0#read: object-id: string of 4294967295 bytes is too long"},
		{map[string]any{"op": 3, "p": 16, "n": 2, "ret": 8192}, "import aios:sdk/spaces@0.1.0#read: result: pointer 65531 is not aligned to 4"},
		{map[string]any{"op": 1, "p": 16, "n": 2, "ret": 65535}, "import aios:sdk/spaces@0.1.0#write: result.ok: realloc returned"},
		{map[string]any{"op": 2, "p": 16, "n": 2, "ret": 65535}, "import aios:sdk/tools@0.1.0#call-tool: result.err: realloc returned"},
	} {
		v, err := call(t, p, env, "run", c.args)
		if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v %v, want ProviderCrashed with %q", c.args, v, err, c.want)
		}
	}
	if v, err := call(t, p, env, "run", map[string]any{"op": 0, "p": 16, "n": 2, "ret": 8192}); err != nil || v != int64(0) {
		t.Fatalf("a good read after the traps: %v %v", v, err)
	}
}

// logLongHex is this component (through `jco parse`): run(lvl, n) logs
// n times, at level lvl, "a" followed by 2100 "é" (4201 bytes).
//
//	(component
//	  (type $log-ty (instance
//	    (type $level (enum "debug" "info" "warn" "error"))
//	    (export "level" (type (eq $level)))
//	    (type $f (func (param "level" 1) (param "message" string)))
//	    (export "log" (func (type $f)))))
//	  (import "aios:sdk/log@0.1.0" (instance $log (type $log-ty)))
//	  (core module $libc (memory (export "mem") 1))
//	  (core instance $libc (instantiate $libc))
//	  (alias core export $libc "mem" (core memory $mem))
//	  (alias export $log "log" (func $logf))
//	  (core func $logc (canon lower (func $logf) (memory $mem) string-encoding=utf8))
//	  (core module $m
//	    (import "libc" "mem" (memory 1))
//	    (import "sdk" "log" (func $log (param i32 i32 i32)))
//	    ;; run(lvl, n): logs n times "a" followed by 2100 "é" (4201 bytes)
//	    (func (export "run") (param $lvl i32) (param $n i32) (result i32)
//	      (local $i i32)
//	      (i32.store8 (i32.const 16) (i32.const 0x61))
//	      (local.set $i (i32.const 17))
//	      (loop $fill
//	        (i32.store16 (local.get $i) (i32.const 0xa9c3))
//	        (local.set $i (i32.add (local.get $i) (i32.const 2)))
//	        (br_if $fill (i32.lt_u (local.get $i) (i32.const 4217))))
//	      (loop $l
//	        (if (i32.gt_s (local.get $n) (i32.const 0)) (then
//	          (call $log (local.get $lvl) (i32.const 16) (i32.const 4201))
//	          (local.set $n (i32.sub (local.get $n) (i32.const 1)))
//	          (br $l))))
//	      (i32.const 7)))
//	  (core instance $i (instantiate $m (with "libc" (instance $libc)) (with "sdk" (instance (export "log" (func $logc))))))
//	  (type $t (func (param "lvl" u32) (param "n" u32) (result u32)))
//	  (alias core export $i "run" (core func $run))
//	  (func (export "run") (type $t) (canon lift (core func $run)))
//	)
const logLongHex = "0061736d0d0001000744014204016d0405646562756704696e666f047761726e056572726f720400056c6576656c03000001" +
	"4002056c6576656c01076d6573736167657301000400036c6f6701020a1701001261696f733a73646b2f6c6f6740302e312e" +
	"30050001240061736d010000000503010001070701036d656d0200000c046e616d650005046c696263020401000000061002" +
	"00020100036d656d010000036c6f670808010100000203000001bc010061736d01000000010d0260037f7f7f0060027f7f01" +
	"7f021702046c696263036d656d0200010373646b036c6f670000030201010707010372756e00010a4c014a01017f411041e1" +
	"003a0000411121020340200241c3d3023b0100200241026a2102200241f920490d000b0340200141004a04402000411041e9" +
	"201000200141016b21010c010b0b41070b002f046e616d650002016d01060100036c6f67020e01010300036c766c01016e02" +
	"0169030c010102000466696c6c01016c0219020101036c6f670000000102046c69626312000373646b1201070d014002036c" +
	"766c79016e790079060901000001020372756e08060100000100010b0901000372756e01010000670e636f6d706f6e656e74" +
	"2d6e616d65010e00000200046c6f6763010372756e010800020100036d656d010c00110200046c69626301016d010c001202" +
	"00046c6962630201690108010100046c6f6766010d030200066c6f672d74790101740107050100036c6f67"

// TestGuestLogCut: aios:sdk/log.log cut a message longer than 4 KiB
// at byte 4096, in the middle of an "é" here (the log got half a
// character, written as U+FFFD), and dropped the messages past 1,000 a
// call without a word. The cut is at a character boundary now, and one
// warning says the rest of the call's messages are dropped.
func TestGuestLogCut(t *testing.T) {
	p := loadHexComponent(t, logLongHex, "loglong.wasm")
	env := &fakeEnv{}
	if v, err := call(t, p, env, "run", map[string]any{"lvl": 1, "n": 1}); err != nil || v != int64(7) {
		t.Fatalf("run: %v %v", v, err)
	}
	if len(env.logs) != 1 {
		t.Fatalf("logs: %q", env.logs)
	}
	if l := env.logs[0]; !utf8.ValidString(l) || strings.Contains(l, "\ufffd") || strings.ContainsRune(l, utf8.RuneError) ||
		!strings.Contains(l, "aé") || !strings.Contains(l, "é…") {
		t.Errorf("the long message was not cut at a character boundary: ...%q", l[max(0, len(l)-40):])
	}
	if n := strings.Count(env.logs[0], "é"); n != 2047 {
		t.Errorf("%d of the 2100 é kept, want 2047 (4095 bytes)", n)
	}
	env = &fakeEnv{}
	p.lines = nil // the per-call cap, not the provider's lines a second (TestLinesGatedPerProvider)
	if _, err := call(t, p, env, "run", map[string]any{"lvl": 3, "n": MaxLogMessages + 5}); err != nil {
		t.Fatal(err)
	}
	if len(env.logs) != MaxLogMessages+1 || !strings.Contains(env.logs[MaxLogMessages], "guest log capped") {
		t.Fatalf("%d log records, the last %q; want %d messages and one warning", len(env.logs), env.logs[len(env.logs)-1][:min(200, len(env.logs[len(env.logs)-1]))], MaxLogMessages)
	}
}

// chainTypes is a type section of n option types, each option<prev> (the
// first option<u32>), then a function type (a: last) -> ().
func chainTypes(n int) []byte {
	types := [][]byte{{0x6b, 0x79}}
	for i := 1; i < n; i++ {
		types = append(types, appendSLEB([]byte{0x6b}, int64(i-1)))
	}
	types = append(types, cat(appendSLEB(cat([]byte{0x40, 0x01}, str("a")), int64(n-1)), []byte{0x01, 0x00}))
	return sec(7, types...)
}

// TestManyItemsRefused: a component of n type definitions took a few
// hundred bytes of host memory per definition to parse and link before
// anything refused it: 24 MB of 5 M definitions took 4 GB and 23 s (1 M:
// 1.2 GB, 7 s, New and Inspect). A binary of more than binary.MaxItems
// items is refused as it is read, naming the limit.
func TestManyItemsRefused(t *testing.T) {
	const n = 1_000_000
	b := comp(chainTypes(n), sec(1, emptyModule), sec(2, []byte{0x00, 0x00, 0x00}),
		sec(6, cat([]byte{0x00, 0x00, 0x01, 0x00}, str("f")), cat([]byte{0x00, 0x02, 0x01, 0x00}, str("memory"))),
		sec(8, cat([]byte{0x00, 0x00, 0x00, 0x00}, leb(n))),
		sec(11, cat([]byte{0x00}, str("run"), []byte{0x01, 0x00, 0x00})))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	p, err := New(context.Background(), b, "chain.wasm", "", Options{})
	_, ierr := Inspect(context.Background(), b, "chain.wasm")
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if err == nil {
		p.Close()
	}
	for _, e := range []error{err, ierr} {
		if e == nil || !strings.Contains(e.Error(), "chain.wasm") || !strings.Contains(e.Error(), "more than 100000 items") {
			t.Errorf("got %.300v, want an error naming the file and the limit of items", e)
		}
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 || took > 2*time.Second {
		t.Errorf("refusing %d bytes took %v and allocated %d MiB", len(b), took, alloc>>20)
	}
}

// postTrapHex is this component (through `jco parse`): f returns "hi"
// and its post-return traps; h(r) sets what cabi_realloc returns (7:
// it traps); k(xs: list<u64>) takes a list through cabi_realloc.
//
//	(component
//	  (core module $m
//	    (memory (export "mem") 1)
//	    (global $ret (mut i32) (i32.const 1024))
//	    (data (i32.const 16) "\20\00\00\00\02\00\00\00hi")
//	    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
//	      (if (i32.eq (global.get $ret) (i32.const 7)) (then unreachable))
//	      (global.get $ret))
//	    (func (export "f") (result i32) (i32.const 16))
//	    (func (export "post") (param i32) unreachable)
//	    (func (export "g") (param $p i32) (param $n i32) (param $r i32) (result i32)
//	      (global.set $ret (local.get $r)) (i32.const 1))
//	    (func (export "h") (param $r i32) (result i32) (global.set $ret (local.get $r)) (i32.const 0))
//	    (func (export "k") (param i32 i32) (result i32) (i32.const 2))
//	  )
//	  (core instance $i (instantiate $m))
//	  (alias core export $i "mem" (core memory $mem))
//	  (alias core export $i "realloc" (core func $realloc))
//	  (alias core export $i "f" (core func $f))
//	  (alias core export $i "post" (core func $post))
//	  (alias core export $i "h" (core func $h))
//	  (alias core export $i "k" (core func $k))
//	  (type $tf (func (result string)))
//	  (func (export "f") (type $tf) (canon lift (core func $f) (memory $mem) (post-return $post)))
//	  (type $th (func (param "r" u32) (result u32)))
//	  (func (export "h") (type $th) (canon lift (core func $h)))
//	  (type $lu (list u64))
//	  (type $tk (func (param "xs" $lu) (result u32)))
//	  (func (export "k") (type $tk) (canon lift (core func $k) (memory $mem) (realloc $realloc)))
//	)
const postTrapHex = "0061736d0d00010001d7010061736d0100000001230660047f7f7f7f017f6000017f60017f0060037f7f7f017f60017f017f" +
	"60027f7f017f03070600010203040505030100010607017f014180080b072807036d656d0200077265616c6c6f6300000166" +
	"000104706f737400020167000301680004016b00050a2f060d0023004107460440000b23000b040041100b0300000b080020" +
	"02240041010b08002000240041000b040041020b0b10010041100b0a200000000200000068690024046e616d650002016d02" +
	"1102030300017001016e0201720401000172070601000372657402040100000006300600020100036d656d00000100077265" +
	"616c6c6f630000010001660000010004706f737400000100016800000100016b07050140000073080a010000010203000502" +
	"00070801400101727900790806010000030001070b0270774001027873020079080a010000040203000400030b1303000166" +
	"01000000016801010000016b010200005a0e636f6d706f6e656e742d6e616d65011b00000500077265616c6c6f6301016602" +
	"04706f737403016804016b010800020100036d656d010600110100016d010600120100016901120304000274660102746802" +
	"026c750302746b"

// TestPostReturnTrapNamed: a post-return function that trapped
// failed the call with "tool f: wasm error: unreachable", as if f itself
// had trapped (a trapping cabi_realloc says "cabi_realloc: …"). The error
// says "post-return" now.
func TestPostReturnTrapNamed(t *testing.T) {
	p := loadHexComponent(t, postTrapHex, "post.wasm")
	env := &fakeEnv{}
	v, err := call(t, p, env, "f", map[string]any{})
	if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "tool f: post-return: wasm error: unreachable") {
		t.Errorf("f: got %v %v, want ProviderCrashed naming the post-return", v, err)
	}
	for _, c := range []struct {
		r    int
		want string
	}{{1028, "tool k: xs: realloc returned 1028, not aligned to 8"}, {7, "tool k: xs: cabi_realloc: wasm error: unreachable"}} {
		if _, err := call(t, p, env, "h", map[string]any{"r": c.r}); err != nil {
			t.Fatal(err)
		}
		v, err := call(t, p, env, "k", map[string]any{"xs": []any{1, 2}})
		if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), c.want) {
			t.Errorf("k after h(%d): got %v %v, want %q", c.r, v, err, c.want)
		}
	}
	if v, err := call(t, p, env, "k", map[string]any{"xs": []any{1, 2}}); err != nil || v != int64(2) {
		t.Errorf("k on a fresh instance: %v %v", v, err)
	}
}

// endlessStartHex is this component (through `jco parse`): its core
// module's start function never ends.
//
//	(component
//	  (core module $b
//	    (func $s (loop $l (br $l)))
//	    (start $s)
//	    (func (export "f") (result i32) (i32.const 1)))
//	  (core instance $bi (instantiate $b))
//	  (alias core export $bi "f" (core func $f))
//	  (type $t (func (result u32)))
//	  (func (export "f") (type $t) (canon lift (core func $f)))
//	)
const endlessStartHex = "0061736d0d000100014a0061736d010000000108026000006000017f0303020001070501016600010801000a0e0207000340" +
	"0c000b0b040041010b0017046e616d6500020162010401000173030601000100016c02040100000006070100000100016607" +
	"05014000007908060100000000000b0701000166010000002f0e636f6d706f6e656e742d6e616d6501060000010001660106" +
	"00110100016201070012010002626901050301000174"

// TestEndlessStartFunction: the instance a load makes ran its start
// functions under the loader's context only, so a component whose start
// function never ends held New (and the host's loading of it) forever
// under context.Background(), and for discovery's minutes otherwise; core
// modules and the wasmtime engine stop theirs after 10 s. The load now
// fails after Options.LoadTimeout (runtimes.wasm.load_timeout), naming it,
// instrumented or not.
func TestEndlessStartFunction(t *testing.T) {
	b, err := hex.DecodeString(endlessStartHex)
	if err != nil {
		t.Fatal(err)
	}
	for _, noInstr := range []bool{false, true} {
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			p, err := New(context.Background(), b, "endless.wasm", "", Options{LoadTimeout: 200 * time.Millisecond, NoInstrument: noInstr})
			if err == nil {
				p.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "endless.wasm") || !strings.Contains(err.Error(), "load_timeout (200ms)") {
				t.Errorf("NoInstrument %v: got %v, want a load error naming the file and the load timeout", noInstr, err)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("NoInstrument %v: the load took %v", noInstr, took)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("NoInstrument %v: the load of a component whose start function never ends did not end", noInstr)
		}
	}
}

// callLoopHex is this component (through `jco parse`): run(n, len) calls
// aios:sdk/tools.call-tool n times with a name of len bytes, a different
// one each time.
//
//	(component
//	  (type $tools-ty (instance
//	    (type (result string (error string)))
//	    (type (func (param "name" string) (param "params-json" string) (result 0)))
//	    (export "call-tool" (func (type 1)))))
//	  (import "aios:sdk/tools@0.1.0" (instance $tools (type $tools-ty)))
//	  (core module $libc
//	    (memory (export "mem") 2)
//	    (func (export "realloc") (param i32 i32 i32 i32) (result i32) (i32.const 65536)))
//	  (core instance $libc (instantiate $libc))
//	  (alias core export $libc "mem" (core memory $mem))
//	  (alias core export $libc "realloc" (core func $realloc))
//	  (alias export $tools "call-tool" (func $callf))
//	  (core func $callc (canon lower (func $callf) (memory $mem) (realloc $realloc) string-encoding=utf8))
//	  (core module $m
//	    (import "libc" "mem" (memory 2))
//	    (import "sdk" "call" (func $call (param i32 i32 i32 i32 i32)))
//	    (data (i32.const 16) "{}")
//	    ;; run(n, len): calls call-tool n times with a name of len bytes at 1024
//	    ;; whose first 4 bytes are the iteration number
//	    (func (export "run") (param $n i32) (param $len i32) (result i32)
//	      (local $i i32)
//	      (memory.fill (i32.const 1024) (i32.const 0x61) (local.get $len))
//	      (loop $l
//	        (if (i32.lt_u (local.get $i) (local.get $n)) (then
//	          (i32.store8 (i32.const 1024) (i32.add (i32.const 0x41) (i32.and (local.get $i) (i32.const 15))))
//	          (i32.store8 (i32.const 1025) (i32.add (i32.const 0x41) (i32.and (i32.shr_u (local.get $i) (i32.const 4)) (i32.const 15))))
//	          (i32.store8 (i32.const 1026) (i32.add (i32.const 0x41) (i32.and (i32.shr_u (local.get $i) (i32.const 8)) (i32.const 15))))
//	          (i32.store8 (i32.const 1027) (i32.add (i32.const 0x41) (i32.and (i32.shr_u (local.get $i) (i32.const 12)) (i32.const 15))))
//	          (i32.store8 (i32.const 1028) (i32.add (i32.const 0x41) (i32.and (i32.shr_u (local.get $i) (i32.const 16)) (i32.const 15))))
//	          (call $call (i32.const 1024) (local.get $len) (i32.const 16) (i32.const 2) (i32.const 64))
//	          (local.set $i (i32.add (local.get $i) (i32.const 1)))
//	          (br $l))))
//	      (i32.load (i32.const 64))))
//	  (core instance $i (instantiate $m (with "libc" (instance $libc))
//	     (with "sdk" (instance (export "call" (func $callc))))))
//	  (type $t (func (param "n" u32) (param "len" u32) (result u32)))
//	  (alias core export $i "run" (core func $run))
//	  (func (export "run") (type $t) (canon lift (core func $run)))
//	)
const callLoopHex = "0061736d0d000100072f014203016a01730173014002046e616d65730b706172616d732d6a736f6e73000004000963616c6c" +
	"2d746f6f6c01010a1901001461696f733a73646b2f746f6f6c7340302e312e30050001470061736d0100000001090160047f" +
	"7f7f7f017f030201000503010002071102036d656d0200077265616c6c6f6300000a08010600418080040b000c046e616d65" +
	"0005046c69626302040100000006220300020100036d656d00000100077265616c6c6f630100000963616c6c2d746f6f6c08" +
	"0a01010000030300040000018a020061736d01000000010f0260057f7f7f7f7f0060027f7f017f021802046c696263036d65" +
	"6d0200020373646b0463616c6c0000030201010707010372756e00010a9101018e0101017f41800841e1002001fc0b000340" +
	"2002200049044041800841c1002002410f716a3a000041810841c1002002410476410f716a3a000041820841c10020024108" +
	"76410f716a3a000041830841c1002002410c76410f716a3a000041840841c1002002411076410f716a3a0000418008200141" +
	"10410241c0001000200241016a21020c010b0b41c0002802000b0b08010041100b027b7d002a046e616d650002016d010701" +
	"000463616c6c020e01010300016e01036c656e020169030601010100016c021a0201010463616c6c0001000102046c696263" +
	"12000373646b1201070d014002016e79036c656e790079060901000001020372756e08060100000200010b0901000372756e" +
	"01010000760e636f6d706f6e656e742d6e616d65011800000300077265616c6c6f63010563616c6c63020372756e01080002" +
	"0100036d656d010c00110200046c69626301016d010c00120200046c69626302016901090101000563616c6c66010f030200" +
	"08746f6f6c732d7479010174010905010005746f6f6c73"

// TestNestedErrorsBounded: the host remembered every error
// tools.call-tool handed the guest (to give back the original ToolError
// when the guest returns the message unchanged), for the whole call and,
// in a pooled instance, after it: 20,000 calls of a missing tool with a
// different 10 KB name each (the name is in the NotFound message) kept
// 392 MiB after 1.5 s. At most 64 messages of at most 4 KiB are kept now,
// and none after the call.
func TestNestedErrorsBounded(t *testing.T) {
	p := loadHexComponent(t, callLoopHex, "loop.wasm")
	const n = 20000
	calls := 0
	var during runtime.MemStats
	env := &fakeEnv{tools: func(tool string, params any) (any, error) {
		calls++
		if calls == n {
			runtime.GC()
			runtime.ReadMemStats(&during)
		}
		return nil, abi.Errorf(abi.NotFound, "no tool %s", tool)
	}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// 20 000 nested calls: 2 s alone under -race, past 10 s once on a
	// loaded machine, so a deadline of a minute.
	v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "run", Params: map[string]any{"n": n, "len": 10000}, Deadline: time.Now().Add(time.Minute)}, env)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if err != nil || v != int64(1) || calls != n {
		t.Fatalf("run: %v %v after %d calls", v, err, calls)
	}
	grew := func(m runtime.MemStats) int64 { return (int64(m.HeapAlloc) - int64(before.HeapAlloc)) >> 20 }
	if grew(during) > 32 || grew(after) > 32 {
		t.Errorf("the heap grew by %d MiB during the call and %d MiB after it", grew(during), grew(after))
	}
	// The latest error is still the one a guest can pass back.
	st := &callState{}
	te := &abi.ToolError{Code: abi.CapabilityDenied, Message: "denied"}
	for i := range 100 {
		st.nested = RememberNested(st.nested, fmt.Sprint(i), &abi.ToolError{Code: abi.NotFound})
	}
	st.nested = RememberNested(st.nested, te.Error(), te)
	if st.nested[te.Error()] != te || len(st.nested) > maxNestedErrors {
		t.Errorf("the latest nested error was not kept (%d kept)", len(st.nested))
	}
}

// badNamesHex are components (through `jco parse`) whose extern names
// write WIT of their own: "export" is the first, "decl" the second (a
// function of an imported instance type), "import" the third.
//
//	(component
//	  (core module $m
//	    (func (export "f") (param i32) (result i32) (local.get 0)))
//	  (core instance $i (instantiate $m))
//	  (alias core export $i "f" (core func $f))
//	  (type $t (func (param "a" u32) (result u32)))
//	  (func (export "Run Now;\ninterface evil {}") (type $t) (canon lift (core func $f)))
//	)
//
//	(component
//	  (type $log-ty (instance
//	    (type $level (enum "debug" "info" "warn" "error"))
//	    (export "level" (type (eq $level)))
//	    (type $f (func (param "level" 1) (param "message" string)))
//	    (export "log" (func (type $f)))
//	    (export "x;\n  import evil:pkg/all" (func (type $f)))))
//	  (import "aios:sdk/log@0.1.0" (instance $log (type $log-ty)))
//	  (core module $m
//	    (func (export "f") (param i32) (result i32) (local.get 0)))
//	  (core instance $i (instantiate $m))
//	  (alias core export $i "f" (core func $f))
//	  (type $t (func (param "a" u32) (result u32)))
//	  (func (export "f") (type $t) (canon lift (core func $f)))
//	)
//
//	(component
//	  (type $out-ty (instance))
//	  (import "wasi:cli/stdout@0.2.0;\n  import evil:pkg/all" (instance $o (type $out-ty)))
//	  (core module $m
//	    (func (export "f") (param i32) (result i32) (local.get 0)))
//	  (core instance $i (instantiate $m))
//	  (alias core export $i "f" (core func $f))
//	  (type $t (func (param "a" u32) (result u32)))
//	  (func (export "f") (type $t) (canon lift (core func $f)))
//	)
var badNamesHex = map[string]string{
	"export": "0061736d0d000100012e0061736d0100000001060160017f017f03020100070501016600000a0601040020000b0009046e616d650002016d0204010000000607010000010001660708014001016179007908060100000000000b2001001a52756e204e6f773b0a696e74657266616365206576696c207b7d010000002e0e636f6d706f6e656e742d6e616d650106000001000166010600110100016d010600120100016901050301000174",
	"decl":   "0061736d0d0001000761014205016d0405646562756704696e666f047761726e056572726f720400056c6576656c030000014002056c6576656c01076d6573736167657301000400036c6f670102040018783b0a2020696d706f7274206576696c3a706b672f616c6c01020a1701001261696f733a73646b2f6c6f6740302e312e300500012e0061736d0100000001060160017f017f03020100070501016600000a0601040020000b0009046e616d650002016d0204010000000607010000010001660708014001016179007908060100000000010b0701000166010000003f0e636f6d706f6e656e742d6e616d650106000001000166010600110100016d0106001201000169010d030200066c6f672d74790101740107050100036c6f67",
	"import": "0061736d0d00010007030142000a3101002c776173693a636c692f7374646f757440302e322e303b0a2020696d706f7274206576696c3a706b672f616c6c0500012e0061736d0100000001060160017f017f03020100070501016600000a0601040020000b0009046e616d650002016d0204010000000607010000010001660708014001016179007908060100000000010b0701000166010000003d0e636f6d706f6e656e742d6e616d650106000001000166010600110100016d0106001201000169010d030200066f75742d74790101740105050100016f",
}

// TestExternNamesChecked: import and export names were not checked
// against the Component Model's name grammar. A function exported as
// "Run Now;\ninterface evil {}" loaded (its tool description held the
// newline), and an import named "wasi:cli/stdout@0.2.0;\n  import
// evil:pkg/all" made `inspect` print an import the component does not
// have. Such names are refused at load, naming them (wasmparser refuses
// them too).
func TestExternNamesChecked(t *testing.T) {
	for what, h := range badNamesHex {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(context.Background(), b, "names.wasm", "", Options{})
		if err == nil {
			p.Close()
			t.Errorf("%s: loaded", what)
			continue
		}
		if !strings.Contains(err.Error(), "names.wasm") || !strings.Contains(err.Error(), "is not a plain name or an interface name") {
			t.Errorf("%s: %v", what, err)
		}
	}
}

// metaHex are components (through `jco parse`) of one function f whose
// core module carries an aios-provider section:
//
//	bad: (@custom "aios-provider" "{\"id\": \"org.x.y\", \"capabilities\": [\"Clock\"")
//	key: (@custom "aios-provider" "{\"id\": \"org.x.y\", \"capabilites\": [\"Clock\"]}")
//	tool: (@custom "aios-provider" "{\"id\": \"org.x.y\", \"tools\": {\"fo\": {\"description\": \"d\"}}}")
//	ok: (@custom "aios-provider" "{\"id\": \"org.x.y\", \"capabilities\": [\"Clock\"], \"tools\": {\"f\": {\"description\": \"d\"}}}")
var metaHex = map[string]string{
	"bad":  "0061736d0d00010001680061736d0100000001060160017f017f03020100070501016600000a0601040020000b00380d61696f732d70726f76696465727b226964223a20226f72672e782e79222c20226361706162696c6974696573223a205b22436c6f636b220009046e616d650002016d0204010000000607010000010001660708014001016179007908060100000000000b0701000166010000002e0e636f6d706f6e656e742d6e616d650106000001000166010600110100016d010600120100016901050301000174",
	"key":  "0061736d0d00010001690061736d0100000001060160017f017f03020100070501016600000a0601040020000b00390d61696f732d70726f76696465727b226964223a20226f72672e782e79222c20226361706162696c69746573223a205b22436c6f636b225d7d0009046e616d650002016d0204010000000607010000010001660708014001016179007908060100000000000b0701000166010000002e0e636f6d706f6e656e742d6e616d650106000001000166010600110100016d010600120100016901050301000174",
	"tool": "0061736d0d00010001760061736d0100000001060160017f017f03020100070501016600000a0601040020000b00460d61696f732d70726f76696465727b226964223a20226f72672e782e79222c2022746f6f6c73223a207b22666f223a207b226465736372697074696f6e223a202264227d7d7d0009046e616d650002016d0204010000000607010000010001660708014001016179007908060100000000000b0701000166010000002e0e636f6d706f6e656e742d6e616d650106000001000166010600110100016d010600120100016901050301000174",
	"ok":   "0061736d0d0001000190010061736d0100000001060160017f017f03020100070501016600000a0601040020000b00600d61696f732d70726f76696465727b226964223a20226f72672e782e79222c20226361706162696c6974696573223a205b22436c6f636b225d2c2022746f6f6c73223a207b2266223a207b226465736372697074696f6e223a202264227d7d7d0009046e616d650002016d0204010000000607010000010001660708014001016179007908060100000000000b0701000166010000002e0e636f6d706f6e656e742d6e616d650106000001000166010600110100016d010600120100016901050301000174",
}

// TestProviderMetadataChecked: an aios-provider section whose JSON
// did not parse, or held a misspelt key ("capabilites"), or overrode a
// tool the component does not have, was ignored without a word: the
// provider loaded under the default id (component.<file>) and without
// the capabilities it asked for. Such a section refuses the load, naming
// the fault.
func TestProviderMetadataChecked(t *testing.T) {
	for what, want := range map[string]string{
		"bad":  "core module 0: custom section aios-provider: unexpected EOF",
		"key":  `custom section aios-provider: unknown key "capabilites", did you mean "capabilities"?`,
		"tool": `custom section aios-provider: tools."fo" is not a tool of the component (its tools: f)`,
	} {
		b, err := hex.DecodeString(metaHex[what])
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(context.Background(), b, "meta.wasm", "", Options{})
		if err == nil {
			t.Errorf("%s: loaded as %s asking for %v", what, p.Describe().Provider.ID, p.Describe().Provider.Capabilities)
			p.Close()
			continue
		}
		if !strings.Contains(err.Error(), "meta.wasm") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", what, err, want)
		}
	}
	p := loadHexComponent(t, metaHex["ok"], "meta.wasm")
	if reg := p.Describe(); reg.Provider.ID != "org.x.y" || fmt.Sprint(reg.Provider.Capabilities) != "[Clock]" || reg.Tools[0].Description != "d" {
		t.Errorf("good metadata: %+v", reg)
	}
}

// logStartHex is logLongHex (above) with a start function that calls
// aios:sdk/log.log with the level 9, which the enum does not have:
//
//	(func $boot (call $log (i32.const 9) (i32.const 16) (i32.const 1)))
//	(start $boot)
const logStartHex = "0061736d0d0001000744014204016d0405646562756704696e666f047761726e056572726f720400056c6576656c03000001" +
	"4002056c6576656c01076d6573736167657301000400036c6f6701020a1701001261696f733a73646b2f6c6f6740302e312e" +
	"30050001240061736d010000000503010001070701036d656d0200000c046e616d650005046c696263020401000000061002" +
	"00020100036d656d010000036c6f670808010100000203000001d4010061736d0100000001100360037f7f7f006000006002" +
	"7f7f017f021702046c696263036d656d0200010373646b036c6f67000003030201020707010372756e00020801010a57020a" +
	"0041094110410110000b4a01017f411041e1003a0000411121020340200241c3d3023b0100200241026a2102200241f92049" +
	"0d000b0340200141004a04402000411041e9201000200141016b21010c010b0b41070b0035046e616d650002016d010c0200" +
	"036c6f670104626f6f74020e01020300036c766c01016e020169030c010202000466696c6c01016c0219020101036c6f6700" +
	"00000102046c69626312000373646b1201070d014002036c766c79016e790079060901000001020372756e08060100000100" +
	"010b0901000372756e01010000670e636f6d706f6e656e742d6e616d65010e00000200046c6f6763010372756e0108000201" +
	"00036d656d010c00110200046c69626301016d010c00120200046c6962630201690108010100046c6f6766010d030200066c" +
	"6f672d74790101740107050100036c6f67"

// TestStartFunctionHostError: a host function that failed under a
// start function (no call yet) dropped its error, and the load failed
// with wazero's "start function[2] failed: host function aborted the
// call (recovered by wazero)", which names neither the import nor the
// fault. The load error says both now.
func TestStartFunctionHostError(t *testing.T) {
	b, err := hex.DecodeString(logStartHex)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), b, "logstart.wasm", "", Options{})
	if err == nil {
		p.Close()
		t.Fatal("loaded")
	}
	want := "start function: import aios:sdk/log@0.1.0#log: level: discriminant 9 out of range"
	if !strings.Contains(err.Error(), "logstart.wasm") || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}
