package host

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestServedVersionRecorded: a provider that hands a call on to another
// version of its code (discovery's forwarding across a hot reload) tells
// the host's Env which version served it (abi.VersionReporter), and the
// call's CallInfo and audit record name that version; the record named
// the version looked up.
func TestServedVersionRecorded(t *testing.T) {
	te := newTestHost(t, nil)
	p := native.New(abi.ProviderInfo{ID: "org.test.fwd", Version: "1.0.0", Capabilities: []string{}})
	p.MustRegister(abi.ToolDef{Name: "fwd", Version: "1.0.0"}, func(_ context.Context, _ any, env abi.Env) (any, error) {
		env.(abi.VersionReporter).ServedVersion("1.0.1")
		return "ok", nil
	})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	_, info, err := te.h.CallWithInfo(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "fwd", Params: map[string]any{}})
	if err != nil || info.Version != "1.0.1" {
		t.Fatalf("CallWithInfo: version %q, %v; want 1.0.1", info.Version, err)
	}
	// Another call of the same tool that reports nothing keeps its own.
	_, info, err = te.h.CallWithInfo(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "echo", Params: map[string]any{"msg": "x"}})
	if err != nil || info.Version == "1.0.1" {
		t.Fatalf("echo after fwd: version %q, %v", info.Version, err)
	}
	if err := te.h.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(te.audit)
	if err != nil {
		t.Fatal(err)
	}
	var rec string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"fwd"`) {
			rec = l
		}
	}
	if !strings.Contains(rec, `"version":"1.0.1"`) {
		t.Errorf("the audit record of fwd does not name version 1.0.1: %s", rec)
	}
}
