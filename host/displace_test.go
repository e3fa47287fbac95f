package host

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

func answering(id string, tools ...string) *native.Provider {
	p := native.New(abi.ProviderInfo{ID: id})
	for _, n := range tools {
		p.MustRegister(abi.ToolDef{Name: n, Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return id, nil })
	}
	return p
}

// A more trusted provider whose registration is refused (another of its
// tools is held by an equally trusted provider) displaces nothing:
// registration is all or nothing.
func TestRefusedRegistrationDisplacesNothing(t *testing.T) {
	h, err := New(Options{Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	if err := h.AddProvider(ctx, answering("org.t.low", "alpha", "low-only"), ProviderMeta{Trust: abi.Untrusted}); err != nil {
		t.Fatal(err)
	}
	if err := h.AddProvider(ctx, answering("org.t.peer", "beta"), ProviderMeta{Trust: abi.Verified}); err != nil {
		t.Fatal(err)
	}
	err = h.AddProvider(ctx, answering("org.t.high", "alpha", "beta"), ProviderMeta{Trust: abi.Verified})
	if abi.CodeOf(err) != abi.Conflict {
		t.Fatalf("high: %v, want Conflict (beta is held by an equally trusted provider)", err)
	}
	for _, tool := range []string{"alpha", "low-only"} {
		if v, err := h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: tool}); err != nil || v != "org.t.low" {
			t.Errorf("%s = %v, %v after a refused registration", tool, v, err)
		}
	}
}

// displaceHook runs hook once when the host logs a displacement.
type displaceHook struct {
	slog.Handler
	fired atomic.Bool
	hook  func()
}

func (r *displaceHook) Handle(ctx context.Context, rec slog.Record) error {
	if strings.HasPrefix(rec.Message, "tool version displaced") && !r.fired.Swap(true) {
		r.hook()
	}
	return r.Handler.Handle(ctx, rec)
}

// The holder's trust is compared with the newcomer's in the same registry
// transaction that displaces: a holder reloaded at a higher trust just
// after a displacement takes its version back; a less trusted provider
// never removes a more trusted one.
func TestDisplacementRacesReload(t *testing.T) {
	var h *Host
	ctx := context.Background()
	rh := &displaceHook{Handler: slog.NewTextHandler(io.Discard, nil)}
	rh.hook = func() {
		if err := h.ReplaceProvider(ctx, answering("org.t.low", "alpha"), ProviderMeta{Trust: abi.System}); err != nil {
			t.Errorf("reload: %v", err)
		}
	}
	var err error
	h, err = New(Options{Config: config.Default(), Logger: slog.New(rh)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.AddProvider(ctx, answering("org.t.low", "alpha"), ProviderMeta{Trust: abi.Untrusted}); err != nil {
		t.Fatal(err)
	}
	if err := h.AddProvider(ctx, answering("org.t.high", "alpha"), ProviderMeta{Trust: abi.Verified}); err != nil {
		t.Fatal(err)
	}
	if h.Registry().Provider("org.t.low") == nil {
		t.Fatal("the System provider was removed")
	}
	if v, err := h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: "alpha"}); err != nil || v != "org.t.low" {
		t.Fatalf("alpha = %v, %v; want the System provider's", v, err)
	}
}
