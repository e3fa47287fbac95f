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

// TestUnmatchableRequestNamed: a provider asking for
// Network(api.example.com:443) (a port, which no host the check compares
// holds) was loaded without a word, holding a grant that matches nothing,
// and its tool's connection to api.example.com was refused with 'It did
// not ask for it: declare it in the provider's capabilities', though it
// had. The load warns of the request and the refusal names it and why it
// grants nothing; a provider that asked for nothing of the kind is still
// told to declare it.
func TestUnmatchableRequestNamed(t *testing.T) {
	var logs syncBuffer
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.Agents = map[string]config.Agent{"alice": {Grants: []string{"CallTool(*)", "Network(*)", "ReadSpace(*)"}}}
	h, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	check := func(id string, caps []string, tool, want string) {
		p := native.New(abi.ProviderInfo{ID: id, Capabilities: caps})
		p.MustRegister(abi.ToolDef{Name: tool, Version: "1.0.0"},
			func(_ context.Context, _ any, env abi.Env) (any, error) {
				return nil, env.(abi.Checker).Check(abi.MustCapability(want))
			})
		if err := h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.Verified}); err != nil {
			t.Fatal(err)
		}
	}
	check("org.probe.port", []string{"Network(api.example.com:443)"}, "fetch", "Network(api.example.com)")
	check("org.probe.caps", []string{"ReadSpace(Docs)"}, "read-docs", "ReadSpace(docs)")
	check("org.probe.none", nil, "fetch2", "Network(api.example.com)")

	_, err = h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "fetch"})
	if abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), "It asked for Network(api.example.com:443), which grants nothing") ||
		!strings.Contains(err.Error(), "port") {
		t.Errorf("fetch by a provider asking for Network(api.example.com:443): %v", err)
	}
	_, err = h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "read-docs"})
	if abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), "It asked for ReadSpace(Docs), which grants nothing") {
		t.Errorf("read-docs by a provider asking for ReadSpace(Docs): %v", err)
	}
	_, err = h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "fetch2"})
	if abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), "It did not ask for it") {
		t.Errorf("fetch2 by a provider asking for nothing: %v", err)
	}
	w := logs.String()
	for _, want := range []string{"provider=org.probe.port", "capability=Network(api.example.com:443)", "provider=org.probe.caps", "capability=ReadSpace(Docs)"} {
		if !strings.Contains(w, want) {
			t.Errorf("load warnings lack %s:\n%s", want, w)
		}
	}
	if strings.Contains(w, "grants nothing\" provider=org.probe.none") {
		t.Errorf("warned of org.probe.none, which asks for nothing:\n%s", w)
	}
}
