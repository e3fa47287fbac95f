package host

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// TestReadSpaceGrantConfined: a caller granted ReadSpace(source)
// (alice) reads an object of space source, and the same id through every
// name that is not source — a longer name, a pattern, a path, another
// case, a trailing dot — is refused (CapabilityDenied or InvalidParams),
// never served; the id alone finds it only in source. No defect.
func TestReadSpaceGrantConfined(t *testing.T) {
	te := newTestHost(t, nil)
	id, err := te.spaces.Put("source", []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range []string{"source2", "sourc", "sourc*", "s*", "*", "?ource", "../source", "source/..", "./source", "SOURCE", "Source", "source.", "source ", " source", "source\x00", "sоurce"} {
		if _, err := te.spaces.Put(sp, []byte("hello")); err != nil && sp == "source2" {
			t.Fatal(err)
		}
		_, err := te.call("alice", "read", map[string]any{"space": sp, "id": id})
		if c := abi.CodeOf(err); c != abi.CapabilityDenied && c != abi.InvalidParams {
			t.Errorf("read of space %q with ReadSpace(source): %v (code %v), want CapabilityDenied or InvalidParams", sp, err, c)
		}
	}
	for _, sp := range []string{"source", ""} {
		v, err := te.call("alice", "read", map[string]any{"space": sp, "id": id})
		if err != nil {
			t.Fatalf("read of space %q: %v", sp, err)
		}
		if m := v.(map[string]any); m["space"] != "source" || m["data"] != "hello" {
			t.Errorf("read of space %q = %v", sp, m)
		}
	}
}

// TestWriteSpaceGlobGrant: a caller granted WriteSpace(out-*)
// writes to out-1 and out-a.b, and not to out, outx, ou, nor to the
// pattern itself as a name (out-*: InvalidParams). No defect.
func TestWriteSpaceGlobGrant(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["globber"] = config.Agent{Grants: []string{"CallTool(write)", "WriteSpace(out-*)"}}
	})
	for sp, want := range map[string]abi.ErrorCode{
		"out-1": "", "out-a.b": "",
		"out": abi.CapabilityDenied, "outx": abi.CapabilityDenied, "ou": abi.CapabilityDenied, "xout-1": abi.CapabilityDenied,
		"out-*": abi.InvalidParams, "out-.": abi.InvalidParams, "OUT-1": abi.InvalidParams,
	} {
		_, err := te.call("globber", "write", map[string]any{"space": sp, "data": "x"})
		if got := abi.CodeOf(err); got != want {
			t.Errorf("write to %q with WriteSpace(out-*): %v (code %q), want code %q", sp, err, got, want)
		}
	}
}
