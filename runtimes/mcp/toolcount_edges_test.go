package mcp

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
)

// TestMoreToolsThanTheHostTakes: a server listing more tools than
// limits.max_tools_per_provider had its registration refused by the host
// at every listing, and the bridge took that for a failed connection:
// it restarted the server without end (every reconnect_max) and none of
// its tools was ever imported, a call saying the server "is not
// connected". The bridge imports the first max_tools_per_provider (its
// tools before its resources), and logs what it left out, naming the
// setting.
func TestMoreToolsThanTheHostTakes(t *testing.T) {
	cfg := config.Default()
	cfg.Limits.MaxToolsPerProvider = 3
	h, err := host.New(host.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	logs := &syncBuffer{}
	b, err := New(Options{Servers: map[string]ServerConfig{"f": fakeConfig(t, "good")}, MaxTools: cfg.Limits.MaxToolsPerProvider,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Publish: func(ctx context.Context, p abi.Provider, source string) error {
			return h.ReplaceProvider(ctx, p, host.ProviderMeta{Source: "mcp:" + source, Trust: abi.Untrusted, Partial: true})
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := b.Start(ctx); err != nil {
		t.Fatalf("Start: %v\n%s", err, logs.String())
	}
	var names []string
	for _, e := range h.Registry().Tools() {
		if strings.HasPrefix(e.Def.Name, "mcp-f-") {
			names = append(names, e.Def.Name)
		}
	}
	if len(names) != 3 {
		t.Fatalf("imported %v, want 3 tools\n%s", names, logs.String())
	}
	if !strings.Contains(logs.String(), "limits.max_tools_per_provider") {
		t.Errorf("the log does not say what was left out and why:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "reconnecting") || strings.Contains(logs.String(), "restarting") {
		t.Errorf("the server was restarted:\n%s", logs.String())
	}
	if _, err := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "mcp-f-echo", Params: map[string]any{"message": "x"}, Deadline: time.Now().Add(10 * time.Second)}); err != nil {
		t.Errorf("call mcp-f-echo (the first tool listed): %v", err)
	}
}
