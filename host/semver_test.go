package host

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestSemverCheck: a provider registering greet@1.1.0 that makes a new
// parameter required, while greet@1.0.0 is registered, is logged (warn),
// refused with a clear error (refuse), or let through silently (off).
func TestSemverCheck(t *testing.T) {
	mk := func(id, version string, required ...any) abi.Provider {
		p := native.New(abi.ProviderInfo{ID: id})
		p.MustRegister(abi.ToolDef{Name: "greet", Version: version, Parameters: map[string]any{"type": "object",
			"properties": map[string]any{"name": map[string]any{"type": "string"}, "lang": map[string]any{"type": "string"}},
			"required":   required}},
			func(context.Context, any, abi.Env) (any, error) { return "hi", nil })
		return p
	}
	for _, mode := range []string{"warn", "refuse", "off", ""} {
		t.Run("mode="+mode, func(t *testing.T) {
			var logs testutil.SyncBuffer
			cfg := config.Default()
			cfg.Registry.SemverCheck = mode
			h, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			ctx := context.Background()
			if err := h.AddProvider(ctx, mk("org.a.greet", "1.0.0", "name"), ProviderMeta{Trust: abi.Community}); err != nil {
				t.Fatal(err)
			}
			next := mk("org.b.greet", "1.1.0", "name", "lang")
			err = h.AddProvider(ctx, next, ProviderMeta{Trust: abi.Community})
			switch mode {
			case "refuse":
				if abi.CodeOf(err) != abi.InvalidRequest {
					t.Fatalf("refuse: err = %v, want InvalidRequest", err)
				}
				for _, w := range []string{"greet@1.1.0", "greet@1.0.0", "org.a.greet", "/parameters/properties/lang: required-added", "2.0.0"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("refusal %q does not name %q", err, w)
					}
				}
				_ = next.Close()
				if h.Registry().Provider("org.b.greet") != nil {
					t.Fatal("refused provider registered")
				}
			case "off":
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(logs.String(), "SemVer") {
					t.Fatalf("off mode logged: %s", logs.String())
				}
			default: // warn, and the default
				if err != nil {
					t.Fatal(err)
				}
				log := logs.String()
				for _, w := range []string{"level=WARN", "SemVer", "tool=greet", "version=1.1.0", "previous=1.0.0", "/parameters/properties/lang: required-added"} {
					if !strings.Contains(log, w) {
						t.Errorf("warning does not contain %q:\n%s", w, log)
					}
				}
				e, err := h.Registry().Resolve("greet", "1.1.0")
				if err != nil || e.Violation == nil {
					t.Fatalf("Entry.Violation not set: %v", err)
				}
			}
		})
	}
	cfg := config.Default()
	cfg.Registry.SemverCheck = "sometimes"
	if _, err := New(Options{Config: cfg}); err == nil || !strings.Contains(err.Error(), "registry.semver_check") {
		t.Fatalf("bad mode: %v", err)
	}
}
