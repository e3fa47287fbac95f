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

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestDeprecationWarnedAgainAfterRedefinition: the "deprecated tool
// called" warning was logged once per provider and tool version for the
// host's whole life, so when a hot reload changed the deprecation (a new
// message and replacement), or the provider went and came back deprecated
// again, the operator's log never said so and went on showing the first
// note only. It is logged once per definition of the version: again after
// the definition changed (Entry.RegisteredAt renewed), not again for a
// reload that changed nothing; the record goes with its provider.
func TestDeprecationWarnedAgainAfterRedefinition(t *testing.T) {
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.Agents = map[string]config.Agent{"alice": {Grants: []string{"CallTool(*)"}}}
	var logs syncBuf
	h, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	prov := func(msg string) *native.Provider {
		p := native.New(abi.ProviderInfo{ID: "org.test.dep"})
		p.MustRegister(abi.ToolDef{Name: "old", Version: "1.0.0", Deprecation: &abi.Deprecation{Message: msg}},
			func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
		return p
	}
	call := func() {
		t.Helper()
		if _, err := h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "old", Params: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
	}
	count := func(msg string) int {
		return strings.Count(logs.String(), `msg="deprecated tool called" tool=old version=1.0.0 since="" replacement="" message=`+msg)
	}
	meta := ProviderMeta{Source: "test", Trust: abi.System}
	if err := h.AddProvider(context.Background(), prov("first-note"), meta); err != nil {
		t.Fatal(err)
	}
	call()
	call()
	if n := count("first-note"); n != 1 {
		t.Fatalf("first note logged %d times, want once:\n%s", n, logs.String())
	}
	// An unchanged reload: the same definition, no new warning.
	if err := h.ReplaceProvider(context.Background(), prov("first-note"), meta); err != nil {
		t.Fatal(err)
	}
	call()
	if n := count("first-note"); n != 1 {
		t.Fatalf("after an unchanged reload the first note was logged %d times, want once:\n%s", n, logs.String())
	}
	// A reload that changes the note: the new note is logged.
	if err := h.ReplaceProvider(context.Background(), prov("second-note"), meta); err != nil {
		t.Fatal(err)
	}
	call()
	call()
	if n := count("second-note"); n != 1 {
		t.Fatalf("after a reload changing the deprecation the new note was logged %d times, want once:\n%s", n, logs.String())
	}
	// The provider gone, nothing of it stays in the host's memory.
	if err := h.RemoveProvider("org.test.dep"); err != nil {
		t.Fatal(err)
	}
	h.warned.Range(func(k, _ any) bool {
		t.Errorf("deprecation record %q kept after its provider went", k)
		return true
	})
}
