//go:build wasmtime

package wasmtime

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
)

// clockProbeHex is `jco parse` of this component, whose tools read the
// WASI wall clock, monotonic clock and random sources:
//
//	(component
//	  (import "wasi:clocks/wall-clock@0.2.0" (instance $wc … (export "now" (func (result $dt)))))
//	  (import "wasi:clocks/monotonic-clock@0.2.0" (instance $mc (export "now" (func (result u64)))))
//	  (import "wasi:random/random@0.2.0" (instance $rnd
//	    (export "get-random-u64" (func (result u64)))
//	    (export "get-random-bytes" (func (param "len" u64) (result (list u8))))))
//	  (import "wasi:random/insecure@0.2.0" (instance $ins (export "get-insecure-random-u64" (func (result u64)))))
//	  (import "wasi:random/insecure-seed@0.2.0" (instance $seed (export "insecure-seed" (func (result (tuple u64 u64))))))
//	  … a memory and a bump realloc; each function lowered …
//	  (func (export "wall") (result u64) …)      ; the wall clock's seconds
//	  (func (export "mono") (result u64) …)      ; the monotonic clock
//	  (func (export "rand") (result u64) …)      ; get-random-u64
//	  (func (export "bytes") (result u64) …)     ; the first 8 of 16 get-random-bytes
//	  (func (export "insecure") (result u64) …)  ; get-insecure-random-u64
//	  (func (export "seed") (result u64) …))     ; insecure-seed's first
const clockProbeHex = "0061736d0d0001000737014204017202077365636f6e6473770b6e616e6f7365636f6e6473790400086461746574696d6503000001400000010400036e6f7701020a2101001c776173693a636c6f636b732f77616c6c2d636c6f636b40302e322e300500071001420201400000770400036e6f7701000a26010021776173693a636c6f636b732f6d6f6e6f746f6e69632d636c6f636b40302e322e300501073d014205014000007704000e6765742d72616e646f6d2d753634010001707d014001036c656e7700010400106765742d72616e646f6d2d627974657301020a1d010018776173693a72616e646f6d2f72616e646f6d40302e322e300502072401420201400000770400176765742d696e7365637572652d72616e646f6d2d75363401000a1f01001a776173693a72616e646f6d2f696e73656375726540302e322e300503071f014203016f027777014000000004000d696e7365637572652d7365656401010a2401001f776173693a72616e646f6d2f696e7365637572652d7365656440302e322e30050401690061736d0100000001090160047f7f7f7f017f0302010005030100010607017f014180080b071102036d656d0200077265616c6c6f6300000a13011101017f23002104230020036a240020040b001a046e616d650003026d6d02060100010401700706010003746f70020401000000061c0300020100036d656d00000100077265616c6c6f63010000036e6f77080701010000010300060801010001036e6f77080501010001000613010100020e6765742d72616e646f6d2d75363408050101000200061501010002106765742d72616e646f6d2d62797465730809010100030203000400061c01010003176765742d696e7365637572652d72616e646f6d2d753634080501010004000612010100040d696e7365637572652d736565640807010100050103000198020061736d01000000010e0360017f006000017e60027e7f0002540704686f7374036e6f77000004686f7374046d6f6e6f000104686f737403723634000104686f737406726279746573000204686f737403693634000104686f73740473656564000004686f7374036d656d0200010307060101010101010730060477616c6c0006046d6f6e6f00070472616e640008056279746573000908696e736563757265000a0473656564000b0a39060b004100100041002903000b040010010b040010020b100042104110100341102802002903000b040010040b0b004120100541202903000b0032046e616d650005046d61696e01240600036e6f7701046d6f6e6f020372363403067262797465730403693634050473656564023c020107036e6f770001046d6f6e6f000203723634000306726279746573000403693634000504736565640006036d656d020000010104686f7374120107050140000077060a01000001020477616c6c080601000007000507050140000077060a0100000102046d6f6e6f080601000008000607050140000077060a01000001020472616e64080601000009000707050140000077060b010000010205627974657308060100000a000807050140000077060e010000010208696e73656375726508060100000b000907050140000077060a0100000102047365656408060100000c000a0b3c06000477616c6c01060000046d6f6e6f010700000472616e64010800000562797465730109000008696e736563757265010a00000473656564010b000083010e636f6d706f6e656e742d6e616d65012f00000700077265616c6c6f6301036e6f7702046d6f6e6f030372363404067262797465730503693634060473656564010b00020100066d656d6f7279010d00110200026d6d01046d61696e010900120200016d020169011a05050002776301026d630203726e640303696e73040473656564"

// A component's WASI clocks and random sources on wasmtime follow its
// grants as on wazero (docs/components.md): fake unless it asks for and is
// granted Clock / Random, or the config gives them to every provider. They
// were wasmtime's own, real, whatever the grants: a component without
// Clock read the host's time, and without Random the host's entropy.
func TestClocksAndRandomFollowGrantsOnWasmtime(t *testing.T) {
	b, err := hex.DecodeString(clockProbeHex)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "probe.wasm")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(p abi.Provider, tool string) uint64 {
		t.Helper()
		v, err := callP(p, &fakeEnv{}, tool, map[string]any{}, 30*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		switch n := v.(type) {
		case uint64:
			return n
		case int64:
			return uint64(n)
		case float64:
			return uint64(n)
		}
		t.Fatalf("%s: %T %v, want a u64", tool, v, v)
		return 0
	}
	load := func(opts Options) abi.Provider {
		t.Helper()
		p, err := newLoader(t, opts).Load(context.Background(), abi.Source{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		return p
	}
	tools := []string{"rand", "bytes", "insecure", "seed"}

	fake1, fake2 := load(Options{}), load(Options{})
	if w := read(fake1, "wall"); w != 1640995200 {
		t.Errorf("fake wall clock: %d s, want 1640995200 (2022-01-01T00:00:00Z and 1 ms a reading, as on wazero)", w)
	}
	if m1, m2 := read(fake1, "mono"), read(fake1, "mono"); m2 <= m1 || m2-m1 > 1000 {
		t.Errorf("virtual monotonic clock: %d then %d, want a few ns apart", m1, m2)
	}
	// The same instance-fresh fake sources as on wazero: the same values.
	wz, err := component.NewLoader(component.Options{}).Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer wz.Close()
	for _, tool := range tools {
		a, b, z := read(fake1, tool), read(fake2, tool), read(wz, tool)
		if a != b || a != z {
			t.Errorf("fake %s: %#x and %#x on two fresh wasmtime instances, %#x on wazero: want the same", tool, a, b, z)
		}
	}

	// A sleep on the virtual clock takes no time, as on wazero: a minute's
	// sleep under a 30 s deadline answers (on the real clock it is
	// stopped at the deadline: TestSleepEndsAtDeadline).
	if v, err := callP(loadSleeper(t, newLoader(t, Options{})), &fakeEnv{}, "sleep", map[string]any{"ms": int64(60000)}, 30*time.Second); err != nil {
		t.Errorf("a minute's sleep on the virtual clock: %v, %v; want an answer", v, err)
	}

	real := load(Options{RealClock: true, RealRandom: true})
	if w := read(real, "wall"); time.Since(time.Unix(int64(w), 0)).Abs() > time.Hour {
		t.Errorf("real wall clock: %d s, now %d", w, time.Now().Unix())
	}
	real2 := load(Options{RealClock: true, RealRandom: true})
	for _, tool := range []string{"rand", "bytes", "insecure"} {
		if a, b := read(real, tool), read(real2, tool); a == b {
			t.Errorf("real %s: %#x on two providers, want random values", tool, a)
		}
	}

	// Asked for and granted: the conformance component asks for Clock.
	clock, err := abi.ParseGrants([]string{"Clock"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		src  abi.Source
		want bool
	}{{abi.Source{Path: sample(t, "conformance")}, false}, {abi.Source{Path: sample(t, "conformance"), Grants: clock}, true}} {
		p, err := newLoader(t, Options{}).Load(context.Background(), tc.src)
		if err != nil {
			t.Fatal(err)
		}
		wp := p.(*Provider)
		if wp.realClock != tc.want || wp.realRandom {
			t.Errorf("conformance with grants %v: realClock %v realRandom %v, want %v false", tc.src.Grants, wp.realClock, wp.realRandom, tc.want)
		}
		_ = p.Close()
	}
}
