package native

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestRegisterRefusesVersionNotSemVer: Register refuses an invalid tool
// name where the author wrote it, but took any version: "1.0", "v1.2.0"
// or "1.0.0-01" registered, MustRegister did not panic, and the whole
// provider failed only when the host added it ("version "1.0" is not a
// strict SemVer version"). Register refuses such a version now, naming the
// tool and the form wanted; a strict version, with a pre-release or build
// metadata, and no version at all still register.
func TestRegisterRefusesVersionNotSemVer(t *testing.T) {
	ok := func(context.Context, any, abi.Env) (any, error) { return nil, nil }
	p := New(abi.ProviderInfo{ID: "org.test.semver"})
	for _, v := range []string{"1.0", "v1.2.0", "1.0.0-01", " 1.0.0", "latest"} {
		err := p.Register(abi.ToolDef{Name: "greet", Version: v}, ok)
		if err == nil || !strings.Contains(err.Error(), `"greet"`) || !strings.Contains(err.Error(), `"`+v+`"`) || !strings.Contains(err.Error(), "MAJOR.MINOR.PATCH") {
			t.Errorf("version %q: %v; want refused naming the tool, the version and the form", v, err)
		}
	}
	for _, v := range []string{"", "1.2.3", "2.0.0-rc.1", "1.0.1+build.5"} {
		if err := p.Register(abi.ToolDef{Name: "greet", Version: v}, ok); err != nil {
			t.Errorf("version %q: %v", v, err)
		}
	}
	if n := len(p.Describe().Tools); n != 4 {
		t.Errorf("%d tools described, want 4", n)
	}
}
