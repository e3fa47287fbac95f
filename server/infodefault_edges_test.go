package server

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

// TestInfoToolNameNamesDefaultsAdapter: aios/registry.info given a tool's
// name that several adapters serve (greet 1.0.0 from org.test.aaa, 2.0.0
// from org.test.zzz) answered "greet is a tool of adapter org.test.aaa",
// the first by id, whose version no call without a version reaches. It
// names the adapter serving greet's default version, the one tools/list
// shows and an unconstrained call reaches.
func TestInfoToolNameNamesDefaultsAdapter(t *testing.T) {
	ts := newTestServer(t, "", false)
	ctx := context.Background()
	for id, version := range map[string]string{"org.test.aaa": "1.0.0", "org.test.zzz": "2.0.0"} {
		if err := ts.h.AddProvider(ctx, greetProvider(id, version), host.ProviderMeta{Trust: abi.Community}); err != nil {
			t.Fatal(err)
		}
	}
	def, err := ts.h.Registry().Resolve("greet", "")
	if err != nil || def.Provider.Info.ID != "org.test.zzz" {
		t.Fatalf("greet's default: %v, %v; want org.test.zzz's", def, err)
	}
	c := dial(t, ts)
	err = c.Call(ctx, "aios/registry.info", map[string]any{"adapter_id": "greet"}, nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("info greet: %v, want a JSON-RPC error", err)
	}
	if !strings.Contains(je.Message, `is a tool of adapter "org.test.zzz"`) {
		t.Errorf("info greet: %q, want the adapter serving greet's default, org.test.zzz", je.Message)
	}
}
