package host

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestRequiredSpellingBlamesTool: a tool requiring ReadSpace(Docs)
// (a capital no space name holds, so no grant of the config can name it)
// was registered without a word, and a caller holding ReadSpace(docs) was
// refused with 'caller "alice" lacks ReadSpace(Docs), which tool t
// requires', as if its grants were at fault. The load warns, and the
// refusal says the tool's capability_required is what is wrong; a
// ReadSpace(*) holder still calls it, and a well-spelt requirement gets
// neither.
func TestRequiredSpellingBlamesTool(t *testing.T) {
	var logs syncBuffer
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.Agents = map[string]config.Agent{
		"alice": {Grants: []string{"CallTool(*)", "ReadSpace(docs)"}},
		"all":   {Grants: []string{"CallTool(*)", "ReadSpace(*)"}},
		"none":  {Grants: []string{"CallTool(*)"}},
	}
	h, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	ok := func(context.Context, any, abi.Env) (any, error) { return "ok", nil }
	p := native.New(abi.ProviderInfo{ID: "org.probe.spelt"})
	p.MustRegister(abi.ToolDef{Name: "capital", Version: "1.0.0", CapabilityRequired: []string{"ReadSpace(Docs)"}}, ok)
	p.MustRegister(abi.ToolDef{Name: "port", Version: "1.0.0", CapabilityRequired: []string{"Network(api.example.com:443)"}}, ok)
	p.MustRegister(abi.ToolDef{Name: "fine", Version: "1.0.0", CapabilityRequired: []string{"ReadSpace(docs)"}}, ok)
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	call := func(agent, tool string) error {
		_, err := h.Call(context.Background(), &abi.ToolCall{Caller: agent, Tool: tool})
		return err
	}
	if err := call("alice", "capital"); abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), "capability_required") || !strings.Contains(err.Error(), "author") {
		t.Errorf("alice → capital: %v, want CapabilityDenied saying the tool's capability_required is wrong", err)
	}
	if err := call("all", "capital"); err != nil {
		t.Errorf("ReadSpace(*) holder → capital: %v", err)
	}
	if err := call("none", "fine"); abi.CodeOf(err) != abi.CapabilityDenied || strings.Contains(err.Error(), "capability_required") {
		t.Errorf("none → fine: %v, want a plain CapabilityDenied", err)
	}
	if err := call("alice", "fine"); err != nil {
		t.Errorf("alice → fine: %v", err)
	}
	w := logs.String()
	for _, want := range []string{"tool=capital", "capability=ReadSpace(Docs)", "tool=port", "capability=Network(api.example.com:443)"} {
		if !strings.Contains(w, want) {
			t.Errorf("load warnings lack %s:\n%s", want, w)
		}
	}
	if strings.Contains(w, "tool=fine") {
		t.Errorf("warned of tool fine:\n%s", w)
	}
}
