package mcpserver

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestPublicToolThatWritesNotReadOnly: readOnlyHint tells a client the
// tool does not modify its environment (clients run such tools without
// asking). A public tool that requires WriteSpace, or CallTool (the tools
// it calls may write), was announced readOnlyHint true all the same.
func TestPublicToolThatWritesNotReadOnly(t *testing.T) {
	h, s := newTestHost(t, exportCfg)
	p := native.New(abi.ProviderInfo{ID: "org.test.writers", Name: "writers", Runtime: abi.RuntimeNative})
	for _, d := range []abi.ToolDef{
		{Name: "w-store", CapabilityRequired: []string{"WriteSpace(docs)"}},
		{Name: "w-nested", CapabilityRequired: []string{"CallTool(echo)"}},
		{Name: "w-read", CapabilityRequired: []string{"ReadSpace(docs)"}},
	} {
		d.MCPExportable = true
		d.PermissionLevel = abi.PermissionPublic
		d.Parameters = map[string]any{"type": "object"}
		p.MustRegister(d, func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
	}
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"w-store", "w-nested", "w-read"} {
		waitExported(t, s, n)
	}
	cs := connectInMemory(t, s, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"w-store": false, "w-nested": false, "w-read": true}
	seen := 0
	for _, tl := range res.Tools {
		ro, ok := want[tl.Name]
		if !ok {
			continue
		}
		seen++
		if tl.Annotations == nil || tl.Annotations.ReadOnlyHint != ro {
			t.Errorf("%s: annotations %+v, want readOnlyHint %v", tl.Name, tl.Annotations, ro)
		}
		if !ro && (tl.Annotations == nil || tl.Annotations.DestructiveHint == nil || *tl.Annotations.DestructiveHint) {
			t.Errorf("%s (public): annotations %+v, want destructiveHint false", tl.Name, tl.Annotations)
		}
	}
	if seen != len(want) {
		t.Fatalf("listed %d of the tools %v: %v", seen, want, res.Tools)
	}
}
