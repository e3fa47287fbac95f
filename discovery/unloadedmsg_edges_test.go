package discovery

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestUnloadedCallNamesTool: a call that resolved a tool just before its
// provider was unloaded (its file deleted) and reached the closed
// generation after was answered "provider org.test.gone was unloaded",
// which named neither the tool called nor that the unload came while the
// call started: a client that called "echo" could not tell which of its
// calls it was about. The answer names the tool and version too.
func TestUnloadedCallNamesTool(t *testing.T) {
	reg := &abi.ToolRegister{Format: abi.FormatVersion, Provider: abi.ProviderInfo{ID: "org.test.gone", Version: "1.0.0", Runtime: "fake"},
		Tools: []abi.ToolDef{{Name: "echo", Version: "1.0.0", Parameters: map[string]any{"type": "object"}}}}
	p := &fakeProvider{reg: reg, spec: fakeSpec{ID: "org.test.gone", Version: "1.0.0"}}
	s := newShared(p, nil)
	g := newGeneration(s, func() *generation { return nil })
	_ = s.release() // discovery let go: only the generation holds it
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := g.Call(context.Background(), &abi.ToolCall{Tool: "echo", Version: "1.0.0"}, nil)
	var te *abi.ToolError
	if !errors.As(err, &te) || te.Code != abi.Unavailable {
		t.Fatalf("call after unload: %v", err)
	}
	for _, want := range []string{"echo@1.0.0", "org.test.gone", "unloaded"} {
		if !strings.Contains(te.Message, want) {
			t.Errorf("answer %q does not say %q", te.Message, want)
		}
	}
}
