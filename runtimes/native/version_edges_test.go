package native

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestUndeclaredVersionBesideAnotherIsCalled: a provider offering greet
// without a version (registered as 1.0.0, the registry's default) and
// greet 2.0.0 could not serve 1.0.0: the host calls the version it
// resolved, "1.0.0", which the lookup compared with the declared ""
// and answered NotFound 'provider … has no tool "greet" version
// "1.0.0"'. A tool declared without a version is the default version.
func TestUndeclaredVersionBesideAnotherIsCalled(t *testing.T) {
	p := New(abi.ProviderInfo{ID: "org.test.versions"})
	p.MustRegister(abi.ToolDef{Name: "greet"}, func(context.Context, any, abi.Env) (any, error) { return "one", nil })
	p.MustRegister(abi.ToolDef{Name: "greet", Version: "2.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "two", nil })
	for version, want := range map[string]string{"1.0.0": "one", "2.0.0": "two"} {
		got, err := p.Call(context.Background(), &abi.ToolCall{Tool: "greet", Version: version, Params: map[string]any{}}, nil)
		if err != nil || got != want {
			t.Errorf("greet@%s: %v, %v; want %q", version, got, err, want)
		}
	}
}
