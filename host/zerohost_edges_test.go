package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A zero host.Host (declared as a var instead of made with New) panicked
// with a nil pointer dereference in Call, Close and RemoveProvider, and
// AddProvider said "host is closed", which it never was. Now each says the
// Host was not made with New (Unavailable), and Close of it is nil.
func TestZeroHostIsErrorNotPanic(t *testing.T) {
	ctx := context.Background()
	var h host.Host
	check := func(what string, err error) {
		t.Helper()
		if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "host.New") {
			t.Errorf("%s on a zero Host: err = %v, want Unavailable naming host.New", what, err)
		}
	}
	_, err := h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: "echo"})
	check("Call", err)
	_, err = h.Refuse(ctx, &abi.ToolCall{Caller: "cli", Tool: "echo"}, nil)
	check("Refuse", err)
	check("AddProvider", h.AddProvider(ctx, native.New(abi.ProviderInfo{ID: "org.example.tools"}), host.ProviderMeta{}))
	check("ReplaceProvider", h.ReplaceProvider(ctx, native.New(abi.ProviderInfo{ID: "org.example.tools"}), host.ProviderMeta{}))
	check("RemoveProvider", h.RemoveProvider("org.example.tools"))
	if err := h.Close(); err != nil {
		t.Errorf("Close of a zero Host = %v, want nil", err)
	}
}
