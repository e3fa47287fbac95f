package discovery

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

type probeProv struct{ calls int }

func (p *probeProv) Describe() *abi.ToolRegister {
	return &abi.ToolRegister{Provider: abi.ProviderInfo{ID: "org.probe.p"}}
}
func (p *probeProv) Call(context.Context, *abi.ToolCall, abi.Env) (any, error) {
	p.calls++
	return "ok", nil
}
func (p *probeProv) Close() error { return nil }

// A call that looked its tool up just before a hot swap is handed to the
// new generation, with the Env (the grants) of the record it resolved. When
// the new code runs at a lower trust level (a signed plugin replaced by an
// unsigned one) that Env would lend it the old level's grants: such a call
// is refused instead (the caller's retry reaches the new record).
func TestProbeForwardNotToLowerTrust(t *testing.T) {
	for _, tc := range []struct {
		old, new abi.TrustLevel
		forward  bool
	}{{abi.Verified, abi.Untrusted, false}, {abi.Community, abi.Community, true}, {abi.Untrusted, abi.Verified, true}} {
		var cur *generation
		current := func() *generation { return cur }
		oldP, newP := &probeProv{}, &probeProv{}
		g1 := newGeneration(newShared(oldP), current)
		g1.trust = tc.old
		g2 := newGeneration(newShared(newP), current)
		g2.trust = tc.new
		cur = g2
		_ = g1.Close()
		_, err := g1.Call(context.Background(), &abi.ToolCall{Tool: "t"}, nil)
		if tc.forward {
			if err != nil || newP.calls != 1 {
				t.Errorf("%v → %v: not forwarded: %v", tc.old, tc.new, err)
			}
			continue
		}
		var te *abi.ToolError
		if newP.calls != 0 || !errors.As(err, &te) || te.Code != abi.Unavailable {
			t.Errorf("%v → %v: forwarded to the less trusted generation (calls %d, err %v)", tc.old, tc.new, newP.calls, err)
		}
	}
}

// providers.<id>.disabled refuses the provider; a unit whose card names
// that id is not even loaded (its code does not run), and discovery says
// why. The host refused it only after the runtime had started it.
func TestProbeDisabledCardNotLoaded(t *testing.T) {
	env := newEnvTop(t, func(string) string { return "providers:\n  org.test.bcard: {disabled: true}\n" }, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "b", "tool.fake"), fakeSpec{ID: "org.test.b-inner", Version: "1.0.0", Tools: []string{"b-echo"}})
		writeFile(t, filepath.Join(dir, "b", "adapter.json"), cardB)
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a-echo"}})
	}, nil)
	if n := env.load.loads.Load(); n != 1 {
		t.Errorf("%d loads, want 1 (the disabled card's artifact must not be loaded)", n)
	}
	found := false
	for k, v := range env.d.Errors() {
		if strings.Contains(k, "b") && strings.Contains(v, "disabled") {
			found = true
		}
	}
	if !found {
		t.Errorf("no error says the card's provider is disabled: %v", env.d.Errors())
	}
	if _, err := env.call("b-echo", 1); abi.CodeOf(err) != abi.NotFound {
		t.Errorf("b-echo: %v", err)
	}
}
