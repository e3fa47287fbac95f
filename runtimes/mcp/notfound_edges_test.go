package mcp

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestRefusedServerHintSaysNotRetried: a server whose provider the host
// refused at Start (providers.org.aios.mcp.NAME.disabled, say) is never
// started, yet a call of one of its tools was told "it has not connected
// yet: its tools are registered once it connects (it is retried in the
// background …)". The hint says the host refused the server's provider
// and that it is not retried.
func TestRefusedServerHintSaysNotRetried(t *testing.T) {
	b, err := New(Options{Servers: map[string]ServerConfig{"f": fakeConfig(t, "good")},
		Logger: slog.New(slog.DiscardHandler),
		Publish: func(context.Context, abi.Provider, string) error {
			return abi.Errorf(abi.Unavailable, "provider org.aios.mcp.f is disabled by providers.org.aios.mcp.f.disabled in the config")
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Start(context.Background()); err == nil {
		t.Fatal("Start: no error for the refused server")
	}
	hint := b.NotFoundHint("mcp-f-echo")
	if strings.Contains(hint, "retried in the background") || strings.Contains(hint, "once it connects") {
		t.Errorf("hint %q says the server will connect; it is never started", hint)
	}
	for _, want := range []string{"mcp.servers.f", "refused", "not retried"} {
		if !strings.Contains(hint, want) {
			t.Errorf("hint %q does not say %q", hint, want)
		}
	}
}
