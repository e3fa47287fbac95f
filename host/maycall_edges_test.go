package host

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// MayCall with a nil entry (what Registry().Resolve returns with its
// NotFound error, passed on unchecked) panicked with a nil pointer
// dereference inside the capability check; it is an InvalidRequest error
// naming the agent, as other nil arguments of the host's API are.
func TestMayCallNilEntryIsError(t *testing.T) {
	h, err := New(Options{Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	e, _ := h.Registry().Resolve("nope", "")
	err = h.MayCall("cli", e)
	if abi.CodeOf(err) != abi.InvalidRequest {
		t.Fatalf("MayCall(cli, nil) = %v; want InvalidRequest", err)
	}
	if err := h.MayCall("nobody", nil); abi.CodeOf(err) == "" {
		t.Fatal("MayCall of an unknown agent with a nil entry returned nil")
	}
}
