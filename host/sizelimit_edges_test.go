package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestFloatsWithinSizeLimitsAdmitted: limits.max_params_bytes and
// max_result_bytes bound the encoded JSON, but the size was an estimate
// counting 24 bytes for every float, so params or a result of short floats
// (0.5 is 3 bytes) far within the limit were refused with TooLarge
// "params of T exceed 1024 bytes (limits.max_params_bytes)", a size they
// do not have (found by p117: 100 floats, 401 bytes of JSON, refused at a
// 1024-byte limit). A value the estimate puts over the limit is measured
// exactly before it is refused; one really over it still is.
func TestFloatsWithinSizeLimitsAdmitted(t *testing.T) {
	te := newTestHost(t, nil) // max_params_bytes and max_result_bytes: 1024
	floats := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = 0.5
		}
		return out
	}
	p := native.New(abi.ProviderInfo{ID: "org.test.floats"})
	p.MustRegister(abi.ToolDef{Name: "halves", Version: "1.0.0"},
		func(_ context.Context, params any, _ abi.Env) (any, error) {
			n, _ := params.(map[string]any)["n"].(int64)
			return map[string]any{"f": floats(int(n))}, nil
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}

	params := map[string]any{"f": floats(100)}
	b, _ := json.Marshal(params)
	if len(b) > 1024 {
		t.Fatalf("test params are %d bytes of JSON", len(b))
	}
	if _, err := te.call("alice", "whoami", params); err != nil {
		t.Errorf("params of %d bytes of JSON at a limit of 1024: %v", len(b), err)
	}
	if _, err := te.call("alice", "halves", map[string]any{"n": int64(100)}); err != nil {
		t.Errorf("a result of 100 floats (about 400 bytes of JSON) at a limit of 1024: %v", err)
	}
	// Over the limit for real: still refused, naming it.
	_, err := te.call("alice", "whoami", map[string]any{"f": floats(300)})
	if abi.CodeOf(err) != abi.TooLarge || !strings.Contains(err.Error(), "limits.max_params_bytes") {
		t.Errorf("params of 300 floats (1200 bytes) at a limit of 1024: %v, want TooLarge", err)
	}
	_, err = te.call("alice", "halves", map[string]any{"n": int64(300)})
	if abi.CodeOf(err) != abi.TooLarge || !strings.Contains(err.Error(), "limits.max_result_bytes") {
		t.Errorf("a result of 300 floats at a limit of 1024: %v, want TooLarge", err)
	}
}

// TestEscapedStringsCountedAtTheirJSONSize: a string was counted at its
// length, not at its JSON's, where '"', '\\' and control characters are
// escaped (a control character takes six bytes, \u0001), so params and
// results of such strings passed limits.max_params_bytes and
// max_result_bytes, limits of encoded JSON, at up to six times their size
// (found by p117: 1000 bytes of \x01, 6002 bytes of JSON, admitted at a
// 1024-byte limit). A string counts at its encoded length.
func TestEscapedStringsCountedAtTheirJSONSize(t *testing.T) {
	te := newTestHost(t, nil) // max_params_bytes and max_result_bytes: 1024
	for _, s := range []string{strings.Repeat("\x01", 1000), strings.Repeat(`"`, 600), strings.Repeat("\n", 600)} {
		params := map[string]any{"msg": s}
		b, _ := json.Marshal(params)
		_, err := te.call("alice", "whoami", params)
		if abi.CodeOf(err) != abi.TooLarge || !strings.Contains(err.Error(), "limits.max_params_bytes") {
			t.Errorf("params of %d bytes of JSON (a string of %d) at a limit of 1024: %v, want TooLarge", len(b), len(s), err)
		}
		// Within the limit once escaped: still served.
		if _, err := te.call("alice", "echo", map[string]any{"msg": s[:100]}); err != nil {
			t.Errorf("echo of 100 escaped characters: %v", err)
		}
	}
	_, err := te.call("alice", "whoami", map[string]any{strings.Repeat("\x01", 300): int64(1)})
	if abi.CodeOf(err) != abi.TooLarge {
		t.Errorf("a member name of 300 control characters (1800 bytes of JSON) at a limit of 1024: %v, want TooLarge", err)
	}
}
