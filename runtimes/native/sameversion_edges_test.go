package native

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestRegisterRefusesOneVersionTwice: Register promises to refuse a second
// tool of one name and version, but compared the version strings: greet
// without a version beside greet 1.0.0 (the registry's default, so one
// version), or 1.0.0+a beside 1.0.0+b (build metadata makes no other
// version), were taken, MustRegister did not panic where the author wrote
// it, and the provider failed only when the host added it ("registers tool
// greet@1.0.0 twice"), naming neither registration. Both are refused at
// Register now, naming the two versions; 1.0.0 beside 2.0.0 still registers.
func TestRegisterRefusesOneVersionTwice(t *testing.T) {
	ok := func(context.Context, any, abi.Env) (any, error) { return nil, nil }
	for _, c := range []struct{ first, second string }{
		{"", "1.0.0"},
		{"1.0.0", ""},
		{"1.0.0+a", "1.0.0+b"},
	} {
		p := New(abi.ProviderInfo{ID: "org.test.sameversion"})
		p.MustRegister(abi.ToolDef{Name: "greet", Version: c.first}, ok)
		err := p.Register(abi.ToolDef{Name: "greet", Version: c.second}, ok)
		if err == nil || !strings.Contains(err.Error(), "registered twice") ||
			!strings.Contains(err.Error(), `"`+c.first+`"`) || !strings.Contains(err.Error(), `"`+c.second+`"`) {
			t.Errorf("greet %q then %q: %v; want refused naming both versions", c.first, c.second, err)
		}
		if n := len(p.Describe().Tools); n != 1 {
			t.Errorf("greet %q then %q: %d tools described, want 1", c.first, c.second, n)
		}
	}
	p := New(abi.ProviderInfo{ID: "org.test.sameversion"})
	p.MustRegister(abi.ToolDef{Name: "greet"}, ok)
	if err := p.Register(abi.ToolDef{Name: "greet", Version: "2.0.0"}, ok); err != nil {
		t.Errorf("greet 2.0.0 beside the default version: %v", err)
	}
}
