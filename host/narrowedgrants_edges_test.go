package host

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestNarrowedByGrantsNamed: a capability a provider asked for and
// its trust level allows, taken away by providers.<id>.grants, was
// refused (and warned of at load) as 'trust level System does not allow
// it (trust.caps): sign its Adapter Card, or vouch for …', sending the
// operator to raise a trust level that already allows it. The refusal and
// the warning name providers.<id>.grants; a capability the level's caps
// drop still names trust.caps.
func TestNarrowedByGrantsNamed(t *testing.T) {
	var logs syncBuffer
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.Agents = map[string]config.Agent{"alice": {Grants: []string{"CallTool(*)", "ReadSpace(*)", "Inference", "Network(*)"}}}
	cfg.Providers = map[string]config.ProviderOverride{"org.probe.narrowed": {Grants: []string{"CallTool(*)", "Inference"}}}
	h, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	p := native.New(abi.ProviderInfo{ID: "org.probe.narrowed", Capabilities: []string{"CallTool(*)", "ReadSpace(*)", "Inference"}})
	p.MustRegister(abi.ToolDef{Name: "check", Version: "1.0.0", Parameters: obj(map[string]any{"cap": str}, "cap")},
		func(_ context.Context, params any, env abi.Env) (any, error) {
			c, err := abi.ParseCapability(params.(map[string]any)["cap"].(string))
			if err != nil {
				return nil, err
			}
			return nil, env.(abi.Checker).Check(c)
		})
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	_, err = h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "check", Params: map[string]any{"cap": "ReadSpace(docs)"}})
	if abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), "providers.org.probe.narrowed.grants") || strings.Contains(err.Error(), "trust.caps") {
		t.Errorf("ReadSpace dropped by providers.<id>.grants: %v, want CapabilityDenied naming providers.org.probe.narrowed.grants, not trust.caps", err)
	}
	if w := logs.String(); !strings.Contains(w, "providers.org.probe.narrowed.grants") || strings.Contains(w, "trust.caps") {
		t.Errorf("load warning does not name providers.org.probe.narrowed.grants:\n%s", w)
	}
	// Network is the level's doing (Community holds none): trust.caps.
	q := native.New(abi.ProviderInfo{ID: "org.probe.capped", Capabilities: []string{"Network(*)"}})
	q.MustRegister(abi.ToolDef{Name: "check2", Version: "1.0.0"},
		func(_ context.Context, _ any, env abi.Env) (any, error) {
			return nil, env.(abi.Checker).Check(abi.MustCapability("Network(example.com)"))
		})
	if err := h.AddProvider(context.Background(), q, ProviderMeta{Source: "test", Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	_, err = h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "check2"})
	if abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), "trust level Community does not allow it (trust.caps)") {
		t.Errorf("Network dropped by the level's caps: %v, want the trust.caps hint", err)
	}
}
