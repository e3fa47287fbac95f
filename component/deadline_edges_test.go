package component

import (
	"context"
	"encoding/hex"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// sleepHex is the component of component/wasmtime's sleepHex (its WAT is
// there): sleep(ms) blocks once on a monotonic-clock pollable for ms,
// wait(ms) naps 1 ms at a time until the monotonic clock has moved ms on.
const sleepHex = "0061736d0d0001000739014204040008706f6c6c61626c6503010168000140010473656c660101000400165b6d6574686f645d706f6c6c61626c652e626c6f636b01020a17010012776173693a696f2f706f6c6c40302e322e300500060d0103000008706f6c6c61626c6507480142070203020101040008706f6c6c61626c6503000001400000770400036e6f770102016901014001047768656e7700030400127375627363726962652d6475726174696f6e01040a26010021776173693a636c6f636b732f6d6f6e6f746f6e69632d636c6f636b40302e322e3005020189020061736d010000000117056000017e60017e017f60017f0060017e0060017e017e02380405636c6f636b036e6f77000005636c6f636b09737562736372696265000104706f6c6c05626c6f636b000204706f6c6c0464726f70000203040303040407100205736c6565700005047761697400060a45031201017f20001001210120011002200110030b0d00200042c0843d7e100420000b2201017e1000200042c0843d7e7c2101034042c0843d100410002001540d000b20000b004d046e616d650002016d011d0500036e6f7701037375620205626c6f636b030464726f7004036e6170021b03040200026e73010170050100026d73060200026d730103656e64030601060100016c060801010001036e6f7708050101000000061701010001127375627363726962652d6475726174696f6e08050101000100061b01010000165b6d6574686f645d706f6c6c61626c652e626c6f636b0807020100020003010238030102036e6f770000097375627363726962650001010205626c6f636b00020464726f70000300000205636c6f636b120004706f6c6c12010709014001026d73770077060b010000010205736c65657008060100000400030709014001026d73770077060a0100000102047761697408060100000500040b14020005736c65657001030000047761697401040000700e636f6d706f6e656e742d6e616d6500020143011a00000400036e6f7701037375620205626c6f636b030464726f70010600110100016d010700120102026369010f01020305736c656570040477616974010c03010108706f6c6c61626c65010f05020004706f6c6c0105636c6f636b"

// TestSleepingComponentStopped (no defect): on wazero a component
// that sleeps in WASI never holds its instance past its deadline.
// Pollables are always ready (docs/components.md), so a sleep returns at
// once, with the fake monotonic clock or the real one; a guest that waits
// for the real clock to move on naps in a loop, which the watchdog stops
// at its deadline (Timeout) or its caller's cancel (Cancelled); the next
// call is served.
func TestSleepingComponentStopped(t *testing.T) {
	b, err := hex.DecodeString(sleepHex)
	if err != nil {
		t.Fatal(err)
	}
	for _, real := range []bool{false, true} {
		p, err := New(context.Background(), b, "sleep.wasm", "", Options{CacheDir: testCacheDir(), RealClock: real})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		run := func(tool string, ms int64, cancelAfter time.Duration) (any, error) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if cancelAfter > 0 {
				time.AfterFunc(cancelAfter, cancel)
			}
			return p.Call(ctx, &abi.ToolCall{ID: "s", Tool: tool, Params: map[string]any{"ms": ms}, Deadline: time.Now().Add(300 * time.Millisecond)}, &fakeEnv{})
		}
		if v, err := run("sleep", 60_000, 0); err != nil || v != int64(60_000) {
			t.Errorf("real clock %v: sleep(60000) = %v (%T), %v; want 60000 at once (pollables are always ready)", real, v, v, err)
		}
		if !real {
			// The fake monotonic clock moves to the end of each nap.
			if v, err := run("wait", 50, 0); err != nil || v != int64(50) {
				t.Errorf("fake clock: wait(50) = %v, %v; want 50 at once", v, err)
			}
			continue
		}
		for _, tc := range []struct {
			cancel time.Duration
			want   abi.ErrorCode
		}{{0, abi.Timeout}, {100 * time.Millisecond, abi.Cancelled}} {
			if v, err := run("wait", 60_000, tc.cancel); abi.CodeOf(err) != tc.want {
				t.Errorf("real clock: wait(60000) with a 300 ms deadline, cancelled after %v: %v, %v; want %s", tc.cancel, v, err, tc.want)
			}
			if v, err := run("sleep", 1, 0); err != nil || v != int64(1) {
				t.Errorf("real clock: after a stopped wait, sleep(1) = %v, %v; want 1", v, err)
			}
		}
	}
}
