package host

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestNestedHugeParamsRefusedEarly: the params of a native tool's nested
// call, 100 000 map entries of Go types over limits.max_params_bytes,
// were converted whole by Env.CallTool before the pipeline bounded them
// (two million took seconds, the call answering Timeout instead of
// TooLarge). They are refused once the part converted is over the limit,
// as a top-level call's are (TestHugeResultRefusedEarly), and the audit
// log is not handed the provider's own map, which it changes afterwards
// (a data race under -race).
func TestNestedHugeParamsRefusedEarly(t *testing.T) {
	te := newTestHost(t, nil) // max_params_bytes: 1024
	var calls atomic.Int64
	huge := make(map[string]countedInt, 100_000)
	for i := range 100_000 {
		huge[strings.Repeat("k", 8)+strconv.Itoa(i)] = countedInt{i, &calls}
	}
	p := native.New(abi.ProviderInfo{ID: "org.test.hugenested", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "pass-huge", Version: "1.0.0"},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			_, err := env.CallTool(ctx, "whoami", "", map[string]any{"huge": huge})
			huge["after"] = countedInt{0, &calls} // its own map, to change as it likes
			return nil, err
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	_, err := te.call("alice", "pass-huge", map[string]any{})
	if abi.CodeOf(err) != abi.TooLarge || !strings.Contains(err.Error(), "params of whoami") || !strings.Contains(err.Error(), "limits.max_params_bytes") {
		t.Errorf("a nested call with params of 100000 entries at a limit of 1024 bytes: %v, want TooLarge naming whoami's params", err)
	}
	if n := calls.Load(); n > 1000 {
		t.Errorf("%d of 100000 entries of a nested call's params normalized before they were refused", n)
	}
	if err := te.h.Close(); err != nil { // every record written: the audit goroutine is done with the call
		t.Fatal(err)
	}
	if n := calls.Load(); n > 1000 {
		t.Errorf("%d of 100000 entries of a nested call's params normalized by the time its record was written", n)
	}
}
