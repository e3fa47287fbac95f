package host

import (
	"context"
	"fmt"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestDeprecationRecordsOfReloadedVersionsReleased: the host notes each
// deprecated tool version it logged a warning for (h.warned, by provider,
// tool and version) and forgot them only when the provider was removed.
// A provider reloaded in place (hot reload) with its deprecated tools at
// new versions or names kept one record per version ever called, growing
// with the reloads for the provider's life (found by p152). A reload
// forgets the records of the versions the provider no longer registers;
// those it still registers stay (an unchanged one is not logged again).
func TestDeprecationRecordsOfReloadedVersionsReleased(t *testing.T) {
	te := newTestHost(t, nil)
	meta := ProviderMeta{Source: "test", Trust: abi.System}
	const rounds = 30
	for i := range rounds {
		p := native.New(abi.ProviderInfo{ID: "org.probe.dep"})
		p.MustRegister(abi.ToolDef{Name: "dep-kept", Version: "1.0.0", Deprecated: true},
			func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
		p.MustRegister(abi.ToolDef{Name: fmt.Sprintf("dep-%d", i), Version: fmt.Sprintf("1.0.%d", i), Deprecated: true},
			func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
		var err error
		if i == 0 {
			err = te.h.AddProvider(context.Background(), p, meta)
		} else {
			err = te.h.ReplaceProvider(context.Background(), p, meta)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range []string{"dep-kept", fmt.Sprintf("dep-%d", i)} {
			if _, err := te.call("alice", tool, map[string]any{}); err != nil {
				t.Fatalf("round %d: %s: %v", i, tool, err)
			}
		}
	}
	var kept []string
	te.h.warned.Range(func(k, _ any) bool {
		kept = append(kept, fmt.Sprintf("%q", k))
		return true
	})
	if len(kept) > 2 {
		t.Fatalf("after %d reloads of a provider with a deprecated tool at a new version each time, %d deprecation records are kept (want the 2 versions it registers): %v", rounds, len(kept), kept)
	}
	found := false
	te.h.warned.Range(func(k, _ any) bool {
		found = found || k.(string) == "org.probe.dep\x00dep-kept@1.0.0"
		return true
	})
	if !found {
		t.Errorf("the record of dep-kept@1.0.0, registered all along, was dropped: %v", kept)
	}
}
