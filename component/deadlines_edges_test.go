package component

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// slowStartHex is component/wasmtime's slowStartComponent(1e9): run: func()
// -> list<...> (empty), whose core module's start function counts to 1e9.
const slowStartHex = "0061736d0d000100070d036f047d7d7d7d700040000001015d0061736d010000000108026000017f60000003030200010503010001070e0201660000066d656d6f727902000801010a2c021200410041103602004104410036020041000b1701017f0340200041016a2200418094ebdc03490d000b0b02040100000006120200000100016600020100066d656d6f7279080801000000010300020b0901000372756e010000"

// A call that needs a new instance (cold pool) runs the start functions
// under its deadline, and now under its caller's cancel too: get made
// their context from context.Background() and the deadline alone, so a
// caller that cancelled while a slow start ran waited for the whole start
// (and then got its result).
func TestStartStopsOnCancel(t *testing.T) {
	b, err := hex.DecodeString(slowStartHex)
	if err != nil {
		t.Fatal(err)
	}
	// Instrumented only: under wazero's termination checks
	// (NoInstrument) the load alone takes longer than load_timeout.
	for _, noInstr := range []bool{false} {
		start := time.Now()
		p, err := New(context.Background(), b, "slowstart.wasm", "", Options{PoolSize: 1, NoInstrument: noInstr, LoadTimeout: 2 * time.Minute}) // under -race on a loaded machine the start alone passed the default 10 s
		if err != nil {
			t.Fatal(err)
		}
		startCost := time.Since(start)
		if startCost < 400*time.Millisecond {
			p.Close()
			t.Skipf("start code took only %v: too fast to tell", startCost)
		}
		(<-p.pool).close() // the next call needs a new instance
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start = time.Now()
		_, err = p.Call(ctx, &abi.ToolCall{ID: "c", Tool: "run", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, nil)
		took := time.Since(start)
		cancel()
		p.Close()
		if abi.CodeOf(err) != abi.Cancelled || took > startCost/2 {
			t.Fatalf("NoInstrument %v: call cancelled 50 ms into a new instance's start (which takes %v): %v after %v, want Cancelled at once", noInstr, startCost, err, took)
		}
		if !strings.Contains(err.Error(), "new instance") {
			t.Errorf("NoInstrument %v: Cancelled %q does not say a new instance was starting", noInstr, err)
		}
	}
}
