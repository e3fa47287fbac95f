package discovery

import (
	"context"
	"errors"
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
