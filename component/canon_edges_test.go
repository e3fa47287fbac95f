package component

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

func loadHexComponent(t *testing.T, hexText, name string) *Provider {
	t.Helper()
	b, err := hex.DecodeString(hexText)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), b, name, "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// badSigHex are components (`jco parse` of the WAT below, one line per
// variant) whose canon lift names core functions of the wrong type, which
// the Canonical ABI's validation refuses (wasmparser, through jco
// transpile: "lowered result types [I32] do not match result types [F64]",
// "canonical option `post-return` / `realloc` uses a core function with an
// incorrect signature"):
//
//	(component
//	  (core module $m (memory (export "mem") 1)
//	    A: (func (export "f") (param i32) (result f64) …)                    ;; f: func(a: u32) -> u32
//	    B: (func (export "post") (param i32 i32))                            ;; post-return of f: func(a: u32) -> u32
//	    C: (func (export "realloc") (param i32) (result i32) …)              ;; realloc of f: func(a: string) -> u32
//	    D: (func (export "post") (param i32) (result i32) …))                ;; a post-return with a result
//	  …
//	  (func $ff (type $t) (canon lift (core func $f) [(memory $mem) (realloc $realloc)] [(post-return $post)]))
//	  (export "f" (func $ff)))
var badSigHex = map[string]string{
	"A": "0061736d0d00010001680061736d0100000001120360017f017c60017c0060047f7f7f7f017f0304030001020503010001071c04036d656d02000166000004706f73740001077265616c6c6f6300020a16030b0044000000000000f83f0b02000b050041c0000b0009046e616d650002016d02040100000006240400020100036d656d0000010001660000010004706f737400000100077265616c6c6f630708014001016179007908060100000000000b0701000166010000004f0e636f6d706f6e656e742d6e616d6501150000030001660104706f737402077265616c6c6f63010800020100036d656d010600110100016d0106001201000169010601010002666601050301000174",
	"B": "0061736d0d00010001620061736d0100000001130360017f017f60027f7f0060047f7f7f7f017f0304030001020503010001071c04036d656d02000166000004706f73740001077265616c6c6f6300020a0f03040041070b02000b050041c0000b0009046e616d650002016d02040100000006240400020100036d656d0000010001660000010004706f737400000100077265616c6c6f6307080140010161790079080801000000010501000b0701000166010000004f0e636f6d706f6e656e742d6e616d6501150000030001660104706f737402077265616c6c6f63010800020100036d656d010600110100016d0106001201000169010601010002666601050301000174",
	"C": "0061736d0d000100015f0061736d0100000001100360027f7f017f60017f0060017f017f0304030001020503010001071c04036d656d02000166000004706f73740001077265616c6c6f6300020a0f03040020010b02000b050041c0000b0009046e616d650002016d02040100000006240400020100036d656d0000010001660000010004706f737400000100077265616c6c6f6307080140010161730079080a010000000203000402000b0701000166010000004f0e636f6d706f6e656e742d6e616d6501150000030001660104706f737402077265616c6c6f63010800020100036d656d010600110100016d0106001201000169010601010002666601050301000174",
	// E: (canon lift (core func $f) (realloc $realloc)) of f: func(a: string) -> u32,
	// without the memory option ("canonical option `realloc` requires `memory`").
	"E": "0061736d0d00010001530061736d01000000010f0260027f7f017f60047f7f7f7f017f03030200010503010001071503036d656d020001660000077265616c6c6f6300010a0c02040020010b050041c0000b0009046e616d650002016d02040100000006130200000100016600000100077265616c6c6f6307080140010161730079080801000000010401000b0701000166010000003f0e636f6d706f6e656e742d6e616d65010f00000200016601077265616c6c6f63010600110100016d0106001201000169010601010002666601050301000174",
	"D": "0061736d0d000100015f0061736d01000000010e0260017f017f60047f7f7f7f017f0304030000010503010001071c04036d656d02000166000004706f73740001077265616c6c6f6300020a1103040041070b040041000b050041c0000b0009046e616d650002016d02040100000006240400020100036d656d0000010001660000010004706f737400000100077265616c6c6f6307080140010161790079080801000000010501000b0701000166010000004f0e636f6d706f6e656e742d6e616d6501150000030001660104706f737402077265616c6c6f63010800020100036d656d010600110100016d0106001201000169010601010002666601050301000174",
}

// TestCoreSignaturesChecked: the host compared only the number of
// parameters and results of a lifted core function, and not the types of
// the post-return and realloc functions at all. A returned the low bits of
// an f64 as the u32 result (0 for 1.5); B failed every call after the
// guest had run ("need 2 params, but stack size is 1"); C and D ran a
// realloc / post-return of another type. E (realloc without memory) failed
// its calls with "invalid memory address or nil pointer dereference". Each
// must fail the load.
func TestCoreSignaturesChecked(t *testing.T) {
	want := map[string]string{"A": "export f", "B": "post-return", "C": "realloc", "D": "post-return", "E": "requires the memory option"}
	for _, v := range []string{"A", "B", "C", "D", "E"} {
		b, err := hex.DecodeString(badSigHex[v])
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(context.Background(), b, "bad.wasm", "", Options{CacheDir: t.TempDir()})
		if err == nil {
			p.Close()
			t.Errorf("%s: loaded", v)
			continue
		}
		if !strings.Contains(err.Error(), want[v]) {
			t.Errorf("%s: %v, want it to name %s", v, err, want[v])
		}
	}
}

// stringsHex is this component (through `jco parse`):
//
//	(component
//	  (core module $m
//	    (memory (export "mem") 1)
//	    (global $bump (mut i32) (i32.const 4096))
//	    ;; string table: (ptr, tagged length) at 64 + 8*sel
//	    (data (i32.const 64) "\00\04\00\00\04\00\00\00")  ;; 0: 1024, 4   utf16 "hé😀"
//	    (data (i32.const 72) "\10\04\00\00\02\00\00\00")  ;; 1: 1040, 2   utf16 lone high surrogate, 'a'
//	    (data (i32.const 80) "\18\04\00\00\04\00\00\00")  ;; 2: 1048, 4   latin1 "café"
//	    (data (i32.const 88) "\00\04\00\00\04\00\00\80")  ;; 3: 1024, 4|tag utf16 "hé😀"
//	    (data (i32.const 96) "\19\04\00\00\03\00\00\00")  ;; 4: 1049, 3   latin1 at an odd address
//	    (data (i32.const 104) "\01\04\00\00\01\00\00\00") ;; 5: 1025, 1   utf16 at an odd address
//	    (data (i32.const 112) "\20\04\00\00\01\00\00\00") ;; 6: 1056, 1   utf16 lone low surrogate
//	    (data (i32.const 1024) "h\00\e9\00\3d\d8\00\de")
//	    (data (i32.const 1040) "\3d\d8a\00")
//	    (data (i32.const 1048) "caf\e9")
//	    (data (i32.const 1056) "\00\de")
//	    ;; realloc log: count at 512, entries (old, old-size, align, new-size) from 516
//	    (func (export "realloc") (param $old i32) (param $osz i32) (param $al i32) (param $nsz i32) (result i32)
//	      (local $p i32) (local $e i32)
//	      (local.set $e (i32.add (i32.const 516) (i32.mul (i32.load (i32.const 512)) (i32.const 16))))
//	      (i32.store (local.get $e) (local.get $old))
//	      (i32.store offset=4 (local.get $e) (local.get $osz))
//	      (i32.store offset=8 (local.get $e) (local.get $al))
//	      (i32.store offset=12 (local.get $e) (local.get $nsz))
//	      (i32.store (i32.const 512) (i32.add (i32.load (i32.const 512)) (i32.const 1)))
//	      (local.set $p (i32.and (i32.add (global.get $bump) (i32.sub (local.get $al) (i32.const 1)))
//	                             (i32.sub (i32.const 0) (local.get $al))))
//	      (global.set $bump (i32.add (local.get $p) (local.get $nsz)))
//	      (if (local.get $old)
//	        (then (memory.copy (local.get $p) (local.get $old)
//	                (select (local.get $osz) (local.get $nsz) (i32.lt_u (local.get $osz) (local.get $nsz))))))
//	      (local.get $p))
//	    (func (export "post") (param i32)
//	      (i32.store (i32.const 8) (i32.add (i32.load (i32.const 8)) (i32.const 1)))
//	      (i32.store (i32.const 12) (local.get 0)))
//	    (func (export "echo") (param i32 i32) (result i32)
//	      (i32.store (i32.const 16) (local.get 0))
//	      (i32.store (i32.const 20) (local.get 1))
//	      (i32.const 16))
//	    (func (export "units") (param i32 i32) (result i32) (local.get 1))
//	    (func (export "raw16") (param i32 i32) (result i32)
//	      (i32.store (i32.const 16) (local.get 0))
//	      (i32.store (i32.const 20) (i32.shl (local.get 1) (i32.const 1)))
//	      (i32.const 16))
//	    (func (export "rawl") (param i32 i32) (result i32)
//	      (i32.store (i32.const 16) (local.get 0))
//	      (i32.store (i32.const 20)
//	        (if (result i32) (i32.and (local.get 1) (i32.const 0x80000000))
//	          (then (i32.shl (i32.and (local.get 1) (i32.const 0x7fffffff)) (i32.const 1)))
//	          (else (local.get 1))))
//	      (i32.const 16))
//	    (func (export "konst") (param i32) (result i32)
//	      (i32.add (i32.const 64) (i32.shl (local.get 0) (i32.const 3))))
//	    (func (export "reallocs") (result i32)
//	      (i32.store (i32.const 24) (i32.const 516))
//	      (i32.store (i32.const 28) (i32.shl (i32.load (i32.const 512)) (i32.const 2)))
//	      (i32.store (i32.const 512) (i32.const 0))
//	      (i32.const 24))
//	    (func (export "posts") (result i32) (i32.load (i32.const 8)))
//	    (func (export "post-arg") (result i32) (i32.load (i32.const 12)))
//	  )
//	  (core instance $i (instantiate $m))
//	  (alias core export $i "mem" (core memory $mem))
//	  (alias core export $i "realloc" (core func $realloc))
//	  (alias core export $i "post" (core func $post))
//	  (alias core export $i "echo" (core func $echo))
//	  (alias core export $i "units" (core func $units))
//	  (alias core export $i "raw16" (core func $raw16))
//	  (alias core export $i "rawl" (core func $rawl))
//	  (alias core export $i "konst" (core func $konst))
//	  (alias core export $i "reallocs" (core func $reallocs))
//	  (alias core export $i "posts" (core func $posts))
//	  (alias core export $i "post-arg" (core func $postarg))
//	  (type $s2s (func (param "s" string) (result string)))
//	  (type $s2u (func (param "s" string) (result u32)))
//	  (type $s2b (func (param "s" string) (result (list u8))))
//	  (type $n2s (func (param "sel" u32) (result string)))
//	  (type $log (func (result (list u32))))
//	  (type $cnt (func (result u32)))
//	  (func $echo8 (type $s2s) (canon lift (core func $echo) (memory $mem) (realloc $realloc) (post-return $post)))
//	  (func $echo16 (type $s2s) (canon lift (core func $echo) string-encoding=utf16 (memory $mem) (realloc $realloc) (post-return $post)))
//	  (func $echol (type $s2s) (canon lift (core func $echo) string-encoding=latin1+utf16 (memory $mem) (realloc $realloc) (post-return $post)))
//	  (func $units16 (type $s2u) (canon lift (core func $units) string-encoding=utf16 (memory $mem) (realloc $realloc)))
//	  (func $unitsl (type $s2u) (canon lift (core func $units) string-encoding=latin1+utf16 (memory $mem) (realloc $realloc)))
//	  (func $raw16f (type $s2b) (canon lift (core func $raw16) string-encoding=utf16 (memory $mem) (realloc $realloc)))
//	  (func $rawlf (type $s2b) (canon lift (core func $rawl) string-encoding=latin1+utf16 (memory $mem) (realloc $realloc)))
//	  (func $konst16 (type $n2s) (canon lift (core func $konst) string-encoding=utf16 (memory $mem)))
//	  (func $konstl (type $n2s) (canon lift (core func $konst) string-encoding=latin1+utf16 (memory $mem)))
//	  (func $reallocsf (type $log) (canon lift (core func $reallocs) (memory $mem)))
//	  (func $postsf (type $cnt) (canon lift (core func $posts)))
//	  (func $postargf (type $cnt) (canon lift (core func $postarg)))
//	  (export "echo8" (func $echo8))
//	  (export "echo16" (func $echo16))
//	  (export "echol" (func $echol))
//	  (export "units16" (func $units16))
//	  (export "unitsl" (func $unitsl))
//	  (export "raw16" (func $raw16f))
//	  (export "rawl" (func $rawlf))
//	  (export "konst16" (func $konst16))
//	  (export "konstl" (func $konstl))
//	  (export "reallocs" (func $reallocsf))
//	  (export "posts" (func $postsf))
//	  (export "post-arg" (func $postargf))
//	)
const stringsHex = "0061736d0d0001000184050061736d01000000011c0560047f7f7f7f017f60017f0060027f7f017f60017f017f6000017f03" +
	"0b0a0001020202020304040405030100010607017f014180200b075c0b036d656d0200077265616c6c6f63000004706f7374" +
	"0001046563686f000205756e69747300030572617731360004047261776c0005056b6f6e73740006087265616c6c6f637300" +
	"0705706f737473000808706f73742d61726700090aa0020a6e01027f41840441800428020041106c6a210520052000360200" +
	"20052001360204200520023602082005200336020c41800441800428020041016a3602002300200241016b6a410020026b71" +
	"2104200420036a240020000440200420002001200320012003491bfc0a00000b20040b16004108410828020041016a360200" +
	"410c20003602000b1200411020003602004114200136020041100b040020010b150041102000360200411420014101743602" +
	"0041100b2b00411020003602004114200141808080807871047f200141ffffffff07714101740520010b36020041100b0b00" +
	"41c00020004103746a0b22004118418404360200411c418004280200410274360200418004410036020041180b0700410828" +
	"02000b0700410c2802000b0b8d010b0041c0000b0800040000040000000041c8000b0810040000020000000041d0000b0818" +
	"040000040000000041d8000b0800040000040000800041e0000b0819040000030000000041e8000b08010400000100000000" +
	"41f0000b082004000001000000004180080b086800e9003dd800de004190080b043dd86100004198080b04636166e90041a0" +
	"080b0200de0030046e616d650002016d021c01000600036f6c6401036f737a0202616c03036e737a04017005016507070100" +
	"0462756d7002040100000006720b00020100036d656d00000100077265616c6c6f630000010004706f737400000100046563" +
	"686f0000010005756e6974730000010005726177313600000100047261776c00000100056b6f6e737400000100087265616c" +
	"6c6f63730000010005706f7374730000010008706f73742d617267072b084001017373007340010173730079707d40010173" +
	"73000240010373656c79007370794000000540000079086d0c00000203030004000501000000020401030004000501000000" +
	"0204020300040005010000000303010300040001000003030203000400010000040301030004000300000503020300040003" +
	"0000060201030004000006020203000400000701030006000008000700000900070b85010c00056563686f38010000000665" +
	"63686f313601010000056563686f6c0102000007756e69747331360103000006756e6974736c010400000572617731360105" +
	"0000047261776c01060000076b6f6e7374313601070000066b6f6e73746c01080000087265616c6c6f63730109000005706f" +
	"737473010a000008706f73742d617267010b000082020e636f6d706f6e656e742d6e616d65014d00000a00077265616c6c6f" +
	"630104706f737402046563686f0305756e6974730405726177313605047261776c06056b6f6e737407087265616c6c6f6373" +
	"0805706f7374730907706f7374617267010800020100036d656d010600110100016d01060012010001690166010c00056563" +
	"686f3801066563686f313602056563686f6c0307756e69747331360406756e6974736c050672617731366606057261776c66" +
	"07076b6f6e7374313608066b6f6e73746c09097265616c6c6f6373660a06706f737473660b08706f73746172676601200306" +
	"00037332730103733275030373326204036e327306036c6f670703636e74"

// TestStringEncodings checks the string-encoding canonical option
// against definitions.py: utf16 and latin1+utf16 strings lowered into the
// guest (bytes, the tagged length, realloc's alignment and size), lifted
// from it (surrogate pairs, latin1, the UTF-16 tag), the traps (lone
// surrogates, a pointer not aligned to 2, also for latin1), and
// post-return getting the core result.
func TestStringEncodings(t *testing.T) {
	p := loadHexComponent(t, stringsHex, "strings.wasm")
	env := &fakeEnv{}
	check := func(tool string, args map[string]any, want string) {
		t.Helper()
		v, err := call(t, p, env, tool, args)
		got := fmt.Sprint(v)
		if err != nil {
			got = "error: " + err.Error()
		} else if s, ok := v.(string); ok && (tool == "raw16" || tool == "rawl") {
			b, _ := base64.StdEncoding.DecodeString(s)
			got = fmt.Sprintf("% x", b)
		}
		if !strings.Contains(got, want) {
			t.Errorf("%s %v: got %s, want %s", tool, args, got, want)
		}
	}
	s := map[string]any{"s": "hé😀"}
	check("echo8", s, "hé😀")
	check("posts", nil, "1")
	check("post-arg", nil, "16")
	check("reallocs", nil, "[0 0 1 7]")
	check("echo16", s, "hé😀")
	check("reallocs", nil, "[0 0 2 8]")
	check("echol", s, "hé😀")
	check("reallocs", nil, "[0 0 2 8]")
	check("echol", map[string]any{"s": "café"}, "café")
	check("reallocs", nil, "[0 0 2 4]")
	check("posts", nil, "4")
	check("units16", s, "4")
	check("unitsl", map[string]any{"s": "café"}, "4")
	check("unitsl", map[string]any{"s": "h€"}, fmt.Sprint(2|1<<31))
	check("raw16", s, "68 00 e9 00 3d d8 00 de")
	check("rawl", map[string]any{"s": "café"}, "63 61 66 e9")
	check("rawl", map[string]any{"s": "h€"}, "68 00 ac 20")
	check("konst16", map[string]any{"sel": 0}, "hé😀")
	check("konstl", map[string]any{"sel": 2}, "café")
	check("konstl", map[string]any{"sel": 3}, "hé😀")
	check("konst16", map[string]any{"sel": 1}, "unpaired UTF-16 surrogate")
	check("konstl", map[string]any{"sel": 4}, "not aligned to 2")
	check("konst16", map[string]any{"sel": 5}, "not aligned to 2")
	check("konst16", map[string]any{"sel": 6}, "unpaired UTF-16 surrogate")
}

// flatHex is this component (through `jco parse`):
//
//	(component
//	  (core module $m
//	    (memory (export "mem") 1)
//	    (global $bump (mut i32) (i32.const 4096))
//	    (func (export "realloc") (param $old i32) (param $osz i32) (param $al i32) (param $nsz i32) (result i32)
//	      (local $p i32)
//	      (i32.store (i32.const 32) (local.get $al))
//	      (i32.store (i32.const 36) (local.get $nsz))
//	      (local.set $p (i32.and (i32.add (global.get $bump) (i32.sub (local.get $al) (i32.const 1)))
//	                             (i32.sub (i32.const 0) (local.get $al))))
//	      (global.set $bump (i32.add (local.get $p) (local.get $nsz)))
//	      (local.get $p))
//	    (func (export "p16") (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32)
//	      (local.get 0) (i32.mul (local.get 1) (i32.const 2)) i32.add
//	      (i32.mul (local.get 15) (i32.const 16)) i32.add)
//	    (func (export "p17") (param $p i32) (result i32)
//	      (i32.store (i32.const 16) (local.get $p))
//	      (i32.store (i32.const 20) (i32.const 68))
//	      (i32.const 16))
//	    (func (export "spill") (param $p i32) (result i32)
//	      (i32.store (i32.const 16) (local.get $p))
//	      (i32.store (i32.const 20) (i32.const 80))
//	      (i32.const 16))
//	    (func (export "vp") (param i32 i64) (result i64) (local.get 1))
//	    (func (export "vd") (param i32 i64) (result i32) (local.get 0))
//	    (func (export "last-alloc") (result i32)
//	      (i32.store (i32.const 24) (i32.const 32))
//	      (i32.store (i32.const 28) (i32.const 2))
//	      (i32.const 24))
//	  )
//	  (core instance $i (instantiate $m))
//	  (alias core export $i "mem" (core memory $mem))
//	  (alias core export $i "realloc" (core func $realloc))
//	  (alias core export $i "p16" (core func $p16))
//	  (alias core export $i "p17" (core func $p17))
//	  (alias core export $i "spill" (core func $spill))
//	  (alias core export $i "vp" (core func $vp))
//	  (alias core export $i "vd" (core func $vd))
//	  (alias core export $i "last-alloc" (core func $lastalloc))
//	  (type $v (variant (case "a" f32) (case "b" u64) (case "c" s8) (case "d" bool) (case "e")))
//	  (export $ve "v" (type $v))
//	  (type $o (option u32))
//	  (type $w (variant (case "x" u8) (case "y" u64)))
//	  (export $we "w" (type $w))
//	  (type $f (flags "f0" "f1" "f2" "f3" "f4" "f5" "f6" "f7" "f8"))
//	  (export $fe "f" (type $f))
//	  (type $r (result (error u16)))
//	  (type $e (enum "ea" "eb" "ec"))
//	  (export $ee "e" (type $e))
//	  (type $t16 (func (param "a" u32) (param "b" u32) (param "c" u32) (param "d" u32) (param "e" u32) (param "f" u32) (param "g" u32) (param "h" u32)
//	                   (param "i" u32) (param "j" u32) (param "k" u32) (param "l" u32) (param "m" u32) (param "n" u32) (param "o" u32) (param "p" u32) (result u32)))
//	  (type $t17 (func (param "a" u32) (param "b" u32) (param "c" u32) (param "d" u32) (param "e" u32) (param "f" u32) (param "g" u32) (param "h" u32)
//	                   (param "i" u32) (param "j" u32) (param "k" u32) (param "l" u32) (param "m" u32) (param "n" u32) (param "o" u32) (param "p" u32) (param "q" u32) (result (list u8))))
//	  (type $tsp (func (param "a" u8) (param "b" u64) (param "c" u16) (param "d" $o) (param "e" $we) (param "f" $fe) (param "g" char) (param "h" bool)
//	                   (param "i" s8) (param "j" f32) (param "k" f64) (param "l" $r) (param "m" $ee) (param "n" u8) (result (list u8))))
//	  (type $tvp (func (param "x" $ve) (result u64)))
//	  (type $tvd (func (param "x" $ve) (result u32)))
//	  (type $tla (func (result (list u32))))
//	  (func $p16f (type $t16) (canon lift (core func $p16)))
//	  (func $p17f (type $t17) (canon lift (core func $p17) (memory $mem) (realloc $realloc)))
//	  (func $spillf (type $tsp) (canon lift (core func $spill) (memory $mem) (realloc $realloc)))
//	  (func $vpf (type $tvp) (canon lift (core func $vp)))
//	  (func $vdf (type $tvd) (canon lift (core func $vd)))
//	  (func $laf (type $tla) (canon lift (core func $lastalloc) (memory $mem)))
//	  (export "p16" (func $p16f))
//	  (export "p17" (func $p17f))
//	  (export "spill" (func $spillf))
//	  (export "vp" (func $vpf))
//	  (export "vd" (func $vdf))
//	  (export "last-alloc" (func $laf))
//	)
const flatHex = "0061736d0d00010001d1020061736d0100000001320660047f7f7f7f017f60107f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f017f" +
	"60017f017f60027f7e017e60027f7e017f6000017f0308070001020203040505030100010607017f014180200b073c08036d" +
	"656d0200077265616c6c6f630000037031360001037031370002057370696c6c0003027670000402766400050a6c6173742d" +
	"616c6c6f6300060a8301072b01017f41202002360200412420033602002300200241016b6a410020026b712104200420036a" +
	"240020040b10002000200141026c6a200f41106c6a0b130041102000360200411441c40036020041100b1300411020003602" +
	"00411441d00036020041100b040020010b040020000b120041184120360200411c410236020041180b0037046e616d650002" +
	"016d022303000500036f6c6401036f737a0202616c03036e737a04017002010001700301000170070701000462756d700204" +
	"01000000064c0800020100036d656d00000100077265616c6c6f630000010003703136000001000370313700000100057370" +
	"696c6c0000010002767000000100027664000001000a6c6173742d616c6c6f63071b01710501610176000162017700016301" +
	"7e000164017f00016500000b0701000176030000070f026b7971020178017d0001790177000b0701000177030300071e016e" +
	"090266300266310266320266330266340266350266360266370266380b07010001660305000710026a00017b6d0302656102" +
	"65620265630b070100016503080007b201094010016179016279016379016479016579016679016779016879016979016a79" +
	"016b79016c79016d79016e79016f790170790079707d40110161790162790163790164790165790166790167790168790169" +
	"79016a79016b79016c79016d79016e79016f79017079017179000b707d400e01617d01627701637b01640201650401660601" +
	"677401687f01697e016a76016b75016c07016d09016e7d000d40010178010077400101780100797079400000110829060000" +
	"01000a00000202030004000c00000302030004000e000004000f0000050010000006010300120b3806000370313601000000" +
	"0370313701010000057370696c6c0102000002767001030000027664010400000a6c6173742d616c6c6f6301050000c6010e" +
	"636f6d706f6e656e742d6e616d65013000000700077265616c6c6f630103703136020370313703057370696c6c0402767005" +
	"02766406096c617374616c6c6f63010800020100036d656d010600110100016d010600120100016901250106000470313666" +
	"01047031376602067370696c6c660303767066040376646605036c6166014203100001760102766502016f03017704027765" +
	"05016606026665070172080165090265650a037431360c037431370e037473700f0374767010037476641203746c61"

// TestFlattening checks MAX_FLAT_PARAMS (16 flat, 17 spilled to a
// tuple in memory from realloc(0, 0, align, size)), the memory layout of a
// spilled tuple of every kind of value (offsets, discriminant sizes,
// payload alignment, flags of 9 labels in 2 bytes, padding) and the
// joined flat types of a variant (f32 bits, s8 sign-extended only to 32
// bits in an i64 slot) against definitions.py.
func TestFlattening(t *testing.T) {
	p := loadHexComponent(t, flatHex, "flat.wasm")
	env := &fakeEnv{}
	get := func(tool string, args map[string]any) string {
		t.Helper()
		v, err := call(t, p, env, tool, args)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if s, ok := v.(string); ok {
			b, _ := base64.StdEncoding.DecodeString(s)
			return fmt.Sprintf("% x", b)
		}
		return fmt.Sprint(v)
	}
	a16, a17 := map[string]any{}, map[string]any{}
	for i, n := range "abcdefghijklmnopq" {
		if i < 16 {
			a16[string(n)] = i + 1
		}
		a17[string(n)] = i + 1
	}
	if got := get("p16", a16); got != "261" {
		t.Errorf("p16: %s", got)
	}
	var want17 []string
	for i := 1; i <= 17; i++ {
		want17 = append(want17, fmt.Sprintf("%02x 00 00 00", i))
	}
	if got := get("p17", a17); got != strings.Join(want17, " ") {
		t.Errorf("p17: %s", got)
	}
	if got := get("last-alloc", nil); got != "[4 68]" {
		t.Errorf("p17 realloc(align, size): %s", got)
	}
	got := get("spill", map[string]any{"a": 0x11, "b": uint64(0x0102030405060708), "c": 0x2233, "d": 0x44556677,
		"e": map[string]any{"tag": "y", "val": uint64(0x8877665544332211)}, "f": []any{"f0", "f8"}, "g": "é", "h": true,
		"i": -2, "j": 1.5, "k": -2.0, "l": map[string]any{"err": 0x99AA}, "m": "ec", "n": 0x5A})
	want := "11 00 00 00 00 00 00 00 08 07 06 05 04 03 02 01 " + // a u8 @0, b u64 @8
		"33 22 00 00 01 00 00 00 77 66 55 44 00 00 00 00 " + // c u16 @16, d option<u32> @20 (payload @24)
		"01 00 00 00 00 00 00 00 11 22 33 44 55 66 77 88 " + // e variant{u8, u64} @32 (payload @40)
		"01 01 00 00 e9 00 00 00 01 fe 00 00 00 00 c0 3f " + // f flags(9) @48, g char @52, h @56, i @57, j f32 @60
		"00 00 00 00 00 00 00 c0 01 00 aa 99 02 5a 00 00" // k f64 @64, l result<_, u16> @72 (payload @74), m @76, n @77; size 80
	if got != want {
		t.Errorf("spilled params:\n got %s\nwant %s", got, want)
	}
	if got := get("last-alloc", nil); got != "[8 80]" {
		t.Errorf("spill realloc(align, size): %s", got)
	}
	for _, c := range []struct {
		x      map[string]any
		vp, vd string
	}{
		{map[string]any{"tag": "a", "val": 1.5}, "1069547520", "0"},
		{map[string]any{"tag": "b", "val": uint64(1<<63 + 5)}, "9223372036854775813", "1"},
		{map[string]any{"tag": "c", "val": -1}, "4294967295", "2"},
		{map[string]any{"tag": "d", "val": true}, "1", "3"},
		{map[string]any{"tag": "e"}, "0", "4"},
	} {
		if got := get("vp", map[string]any{"x": c.x}); got != c.vp {
			t.Errorf("vp %v: payload slot %s, want %s", c.x, got, c.vp)
		}
		if got := get("vd", map[string]any{"x": c.x}); got != c.vd {
			t.Errorf("vd %v: discriminant %s, want %s", c.x, got, c.vd)
		}
	}
}

// handlesHex is this component (through `jco parse`): run(mode) drops a
// pollable as an output-stream (0), asks pollable.ready of a handle that
// does not exist (1), drops a pollable twice (2), or uses one properly (3).
//
//	(component
//	  (type $poll-t (instance
//	    (export "pollable" (type (sub resource)))
//	    (type (borrow 0))
//	    (export "[method]pollable.ready" (func (param "self" 1) (result bool)))))
//	  (import "wasi:io/poll@0.2.0" (instance $poll (type $poll-t)))
//	  (alias export $poll "pollable" (type $pollable))
//	  (type $clock-t (instance
//	    (alias outer 1 $pollable (type))
//	    (export "pollable" (type (eq 0)))
//	    (type (own 1))
//	    (export "subscribe-duration" (func (param "when" u64) (result 2)))))
//	  (import "wasi:clocks/monotonic-clock@0.2.0" (instance $clock (type $clock-t)))
//	  (type $streams-t (instance
//	    (export "output-stream" (type (sub resource)))))
//	  (import "wasi:io/streams@0.2.0" (instance $streams (type $streams-t)))
//	  (alias export $streams "output-stream" (type $ostream))
//	  (alias export $poll "[method]pollable.ready" (func $ready))
//	  (alias export $clock "subscribe-duration" (func $sub))
//	  (core func $ready-l (canon lower (func $ready)))
//	  (core func $sub-l (canon lower (func $sub)))
//	  (core func $drop-p (canon resource.drop $pollable))
//	  (core func $drop-o (canon resource.drop $ostream))
//	  (core instance $imps (export "ready" (func $ready-l)) (export "sub" (func $sub-l))
//	    (export "drop-p" (func $drop-p)) (export "drop-o" (func $drop-o)))
//	  (core module $m
//	    (import "h" "ready" (func $ready (param i32) (result i32)))
//	    (import "h" "sub" (func $sub (param i64) (result i32)))
//	    (import "h" "drop-p" (func $dropp (param i32)))
//	    (import "h" "drop-o" (func $dropo (param i32)))
//	    (func (export "run") (param $mode i32) (result i32)
//	      (local $h i32)
//	      (if (i32.eq (local.get $mode) (i32.const 1)) (then (return (call $ready (i32.const 12345)))))
//	      (local.set $h (call $sub (i64.const 1)))
//	      (if (i32.eqz (local.get $mode)) (then (call $dropo (local.get $h)) (return (i32.const 1))))
//	      (if (i32.eq (local.get $mode) (i32.const 2))
//	        (then (call $dropp (local.get $h)) (call $dropp (local.get $h)) (return (i32.const 2))))
//	      (call $ready (local.get $h))
//	      (call $dropp (local.get $h))))
//	  (core instance $i (instantiate $m (with "h" (instance $imps))))
//	  (type $run-t (func (param "mode" u32) (result u32)))
//	  (alias core export $i "run" (core func $run))
//	  (func $runf (type $run-t) (canon lift (core func $run)))
//	  (export "run" (func $runf))
//	)
const handlesHex = "0061736d0d0001000739014204040008706f6c6c61626c6503010168000140010473656c6601007f0400165b6d6574686f64" +
	"5d706f6c6c61626c652e726561647901020a17010012776173693a696f2f706f6c6c40302e322e300500060d010300000870" +
	"6f6c6c61626c65073b0142050203020101040008706f6c6c61626c65030000016901014001047768656e7700020400127375" +
	"627363726962652d6475726174696f6e01030a26010021776173693a636c6f636b732f6d6f6e6f746f6e69632d636c6f636b" +
	"40302e322e300502071501420104000d6f75747075742d73747265616d03010a1a010015776173693a696f2f73747265616d" +
	"7340302e322e3005030642030300020d6f75747075742d73747265616d010000165b6d6574686f645d706f6c6c61626c652e" +
	"7265616479010001127375627363726962652d6475726174696f6e080d040100000001000100030103040223010104057265" +
	"61647900000373756200010664726f702d7000020664726f702d6f000301cc010061736d01000000010f0360017f017f6001" +
	"7e017f60017f0002290401680572656164790000016803737562000101680664726f702d70000201680664726f702d6f0002" +
	"030201000707010372756e00040a43014101017f2000410146044041b9e00010000f0b420110012101200045044020011003" +
	"41010f0b20004102460440200110022001100241020f0b20011000200110020b0034046e616d650002016d011b0400057265" +
	"6164790103737562020564726f7070030564726f706f020c01040200046d6f646501016802080100000101681200070b0140" +
	"01046d6f6465790079060901000001010372756e08060100000400050b0901000372756e01020000b9010e636f6d706f6e65" +
	"6e742d6e616d650128000005000772656164792d6c01057375622d6c020664726f702d70030664726f702d6f040372756e01" +
	"0600110100016d010c0012020004696d707301016901140103000572656164790103737562020472756e6601380306000670" +
	"6f6c6c2d740108706f6c6c61626c650207636c6f636b2d74030973747265616d732d7404076f73747265616d050572756e2d" +
	"74011805030004706f6c6c0105636c6f636b020773747265616d73"

// TestHostResourceHandles: canon resource.drop traps when the handle
// is of another resource type (definitions.py canon_resource_drop:
// trap_if(h.rt is not rt)), and lifting a borrow<T> traps when the handle
// is not a live handle of T (lift_borrow). The host dropped a pollable
// through [resource-drop]output-stream, and answered pollable.ready of
// handle 12345 with true.
func TestHostResourceHandles(t *testing.T) {
	p := loadHexComponent(t, handlesHex, "handles.wasm")
	for _, c := range []struct {
		mode int
		want string
	}{
		{0, "output-stream"},
		{1, "12345"},
		{2, "invalid resource handle"},
	} {
		v, err := call(t, p, &fakeEnv{}, "run", map[string]any{"mode": c.mode})
		if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), c.want) {
			t.Errorf("mode %d: got %v %v, want ProviderCrashed naming %q", c.mode, v, err, c.want)
		}
	}
	if v, err := call(t, p, &fakeEnv{}, "run", map[string]any{"mode": 3}); err != nil || fmt.Sprint(v) != "1" {
		t.Errorf("mode 3: %v %v", v, err)
	}
}

// pollHex is this component (through `jco parse`): run(0) polls an empty
// list, run(1) two pollables.
//
//	(component
//	  (type $poll-t (instance
//	    (export "pollable" (type (sub resource)))
//	    (type (borrow 0))
//	    (export "[method]pollable.ready" (func (param "self" 1) (result bool)))
//	    (type (list 1))
//	    (type (list u32))
//	    (export "poll" (func (param "in" 3) (result 4)))))
//	  (import "wasi:io/poll@0.2.0" (instance $poll (type $poll-t)))
//	  (alias export $poll "pollable" (type $pollable))
//	  (type $clock-t (instance
//	    (alias outer 1 $pollable (type))
//	    (export "pollable" (type (eq 0)))
//	    (type (own 1))
//	    (export "subscribe-duration" (func (param "when" u64) (result 2)))))
//	  (import "wasi:clocks/monotonic-clock@0.2.0" (instance $clock (type $clock-t)))
//	  (core module $mm
//	    (memory (export "mem") 1)
//	    (global $bump (mut i32) (i32.const 4096))
//	    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
//	      (local $p i32)
//	      (local.set $p (global.get $bump))
//	      (global.set $bump (i32.add (global.get $bump) (i32.and (i32.add (local.get 3) (i32.const 7)) (i32.const -8))))
//	      (local.get $p)))
//	  (core instance $mi (instantiate $mm))
//	  (alias core export $mi "mem" (core memory $mem))
//	  (alias core export $mi "realloc" (core func $realloc))
//	  (alias export $poll "poll" (func $pollf))
//	  (alias export $clock "subscribe-duration" (func $sub))
//	  (core func $poll-l (canon lower (func $pollf) (memory $mem) (realloc $realloc)))
//	  (core func $sub-l (canon lower (func $sub)))
//	  (core instance $imps (export "poll" (func $poll-l)) (export "sub" (func $sub-l)) (export "mem" (memory $mem)))
//	  (core module $m
//	    (import "h" "poll" (func $poll (param i32 i32 i32)))
//	    (import "h" "sub" (func $sub (param i64) (result i32)))
//	    (import "h" "mem" (memory 1))
//	    (func (export "run") (param $mode i32) (result i32)
//	      (if (i32.eqz (local.get $mode))
//	        (then (call $poll (i32.const 100) (i32.const 0) (i32.const 16)) (return (i32.load (i32.const 20)))))
//	      (i32.store (i32.const 100) (call $sub (i64.const 1)))
//	      (i32.store (i32.const 104) (call $sub (i64.const 1)))
//	      (call $poll (i32.const 100) (i32.const 2) (i32.const 16))
//	      (i32.load (i32.const 20))))
//	  (core instance $i (instantiate $m (with "h" (instance $imps))))
//	  (type $run-t (func (param "mode" u32) (result u32)))
//	  (alias core export $i "run" (core func $run))
//	  (func $runf (type $run-t) (canon lift (core func $run)))
//	  (export "run" (func $runf))
//	)
const pollHex = "0061736d0d0001000751014208040008706f6c6c61626c6503010168000140010473656c6601007f0400165b6d6574686f64" +
	"5d706f6c6c61626c652e7265616479010201700101707901400102696e030004040004706f6c6c01050a1701001277617369" +
	"3a696f2f706f6c6c40302e322e300500060d0103000008706f6c6c61626c65073b0142050203020101040008706f6c6c6162" +
	"6c65030000016901014001047768656e7700020400127375627363726962652d6475726174696f6e01030a26010021776173" +
	"693a636c6f636b732f6d6f6e6f746f6e69632d636c6f636b40302e322e30050201700061736d0100000001090160047f7f7f" +
	"7f017f0302010005030100010607017f014180200b071102036d656d0200077265616c6c6f6300000a19011701017f230021" +
	"042300200341076a4178716a240020040b001b046e616d650003026d6d0206010001040170070701000462756d7002040100" +
	"000006330400020100036d656d00000100077265616c6c6f6301000004706f6c6c010001127375627363726962652d647572" +
	"6174696f6e080d02010000020300040001000100021601010304706f6c6c0001037375620002036d656d020001a601006173" +
	"6d0100000001110360037f7f7f0060017e017f60017f017f021b03016804706f6c6c000001680373756200010168036d656d" +
	"020001030201020707010372756e00020a3b013900200045044041e40041004110100041142802000f0b41e4004201100136" +
	"020041e8004201100136020041e40041024110100041142802000b0022046e616d650002016d010c020004706f6c6c010373" +
	"7562020901020100046d6f646502080100010101681201070b014001046d6f6465790079060901000001020372756e080601" +
	"00000300030b0901000372756e01020000a6010e636f6d706f6e656e742d6e616d65012000000400077265616c6c6f630106" +
	"706f6c6c2d6c02057375622d6c030372756e010800020100036d656d010a00110200026d6d01016d011000120300026d6901" +
	"04696d7073020169011401030005706f6c6c660103737562020472756e66012403040006706f6c6c2d740108706f6c6c6162" +
	"6c650207636c6f636b2d74030572756e2d74010f05020004706f6c6c0105636c6f636b"

// TestPollEmptyList: wasi:io/poll's poll "traps if the list is
// empty" (poll.wit); a guest that polled nothing got an empty answer
// (where a real host would wait forever or trap).
func TestPollEmptyList(t *testing.T) {
	p := loadHexComponent(t, pollHex, "poll.wasm")
	if v, err := call(t, p, &fakeEnv{}, "run", map[string]any{"mode": 1}); err != nil || fmt.Sprint(v) != "2" {
		t.Fatalf("two pollables: %v %v, want 2 ready", v, err)
	}
	v, err := call(t, p, &fakeEnv{}, "run", map[string]any{"mode": 0})
	if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("empty list: got %v %v, want ProviderCrashed (poll traps)", v, err)
	}
}

// dupLabelHex are components (`jco parse`) defining and exporting a type
// with two labels that are equal ignoring case, which validation refuses
// (wasmparser: "record field name `a` conflicts with previous field name
// `a`"): R (record (field "a" u32) (field "a" u32)), E (enum "a" "b" "a"),
// F (flags "a" "A"), V (variant (case "x" u32) (case "x")).
var dupLabelHex = map[string]string{
	"R": "0061736d0d000100012e0061736d0100000001060160017f017f03020100070501016600000a0601040020000b0009046e616d650002016d02040100000006070100000100016607090172020161790161790b07010001720300000708014001017879007908060100000000020b0701000166010000003d0e636f6d706f6e656e742d6e616d650106000001000166010600110100016d01060012010001690106010100026666010c030300017201027265020174",
	"E": "0061736d0d000100012e0061736d0100000001060160017f017f03020100070501016600000a0601040020000b0009046e616d650002016d0204010000000607010000010001660709016d030161016201610b07010001720300000708014001017879007908060100000000020b0701000166010000003d0e636f6d706f6e656e742d6e616d650106000001000166010600110100016d01060012010001690106010100026666010c030300017201027265020174",
	"F": "0061736d0d000100012e0061736d0100000001060160017f017f03020100070501016600000a0601040020000b0009046e616d650002016d0204010000000607010000010001660707016e02016101410b07010001720300000708014001017879007908060100000000020b0701000166010000003d0e636f6d706f6e656e742d6e616d650106000001000166010600110100016d01060012010001690106010100026666010c030300017201027265020174",
	"V": "0061736d0d000100012e0061736d0100000001060160017f017f03020100070501016600000a0601040020000b0009046e616d650002016d020401000000060701000001000166070c0171020178017900017800000b07010001720300000708014001017879007908060100000000020b0701000166010000003d0e636f6d706f6e656e742d6e616d650106000001000166010600110100016d01060012010001690106010100026666010c030300017201027265020174",
}

// TestDuplicateLabelsRefused: such a type loaded, and its JSON form
// is ambiguous (one JSON property for two fields, one name for two enum
// cases).
func TestDuplicateLabelsRefused(t *testing.T) {
	for _, v := range []string{"R", "E", "F", "V"} {
		b, err := hex.DecodeString(dupLabelHex[v])
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(context.Background(), b, "dup.wasm", "", Options{CacheDir: t.TempDir()})
		if err == nil {
			p.Close()
			t.Errorf("%s: loaded", v)
		} else if !strings.Contains(err.Error(), "conflicts") {
			t.Errorf("%s: %v", v, err)
		}
	}
}

// TestNonKebabLabelsRefused: labels that are not kebab-case (wasmparser:
// "`a_b` is not in kebab case") are refused at load, naming the label;
// they were used verbatim as JSON names. The components are dupLabelHex's
// with one label changed (same length, so no size changes).
func TestNonKebabLabelsRefused(t *testing.T) {
	for _, tc := range []struct{ name, base, from, to, want string }{
		{"record field", "R", "0172020161790161790b", "01720201617901" + "5f" + "790b", `record field name: identifier "_"`},
		{"flag", "F", "016e02016101410b", "016e020161" + "01" + "2d" + "0b", `flag name: identifier "-"`},
		{"enum case", "E", "016d03016101620161", "016d030161016201" + "30", `enum case name: identifier "0"`},
		{"function parameter", "R", "0140010178790079", "01400101" + "5f" + "790079", `function parameter name: identifier "_"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := dupLabelHex[tc.base]
			if !strings.Contains(h, tc.from) {
				t.Fatalf("%s has no %s", tc.base, tc.from)
			}
			h = strings.Replace(h, tc.from, tc.to, 1)
			if tc.base == "R" && tc.name == "function parameter" {
				// keep the record valid: its second field "a" becomes "b"
				h = strings.Replace(h, "0172020161790161790b", "0172020161790162790b", 1)
			}
			b, err := hex.DecodeString(h)
			if err != nil {
				t.Fatal(err)
			}
			p, err := New(context.Background(), b, "label.wasm", "", Options{CacheDir: t.TempDir()})
			if err == nil {
				p.Close()
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "kebab-case") {
				t.Fatalf("err = %v, want %q … kebab-case", err, tc.want)
			}
		})
	}
	// The same component with kebab-case labels loads.
	b, _ := hex.DecodeString(strings.Replace(dupLabelHex["R"], "0172020161790161790b", "0172020161790162790b", 1))
	p, err := New(context.Background(), b, "label.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("record with fields a and b: %v", err)
	}
	p.Close()
}
