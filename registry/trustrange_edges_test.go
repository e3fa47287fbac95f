package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestTrustOutOfRangeRefused: a provider record whose trust level is
// none of the four (a Go embedder's TrustLevel(-1), an unchecked
// conversion) was registered, and resolution, which walks the levels from
// the top one down to Untrusted, never reached its tools: they were
// listed and served as default, but "^1" was told "no version of tool t
// matches "^1" (available: 1.0.0)"; a level of 2^40 made each resolution
// walk 2^40 levels. Such a registration is now refused, naming the
// provider and the level, and changes nothing.
func TestTrustOutOfRangeRefused(t *testing.T) {
	for _, level := range []abi.TrustLevel{-1, abi.System + 1, 1 << 40} {
		r := New()
		p := prov("org.x.a")
		p.Trust = level
		err := r.Register(p, []abi.ToolDef{tool("t", "1.0.0")})
		wantCode(t, err, abi.InvalidRequest, "org.x.a", level.String(), "Untrusted, Community, Verified, System")
		if n := len(r.Providers()); n != 0 {
			t.Errorf("trust %d: %d providers registered", level, n)
		}
		if _, err := r.Resolve("t", ""); err == nil {
			t.Errorf("trust %d: t resolves", level)
		}
	}
	// The four levels register, and a constraint reaches each one's tools.
	for level := abi.Untrusted; level <= abi.System; level++ {
		r := New()
		p := prov("org.x.a")
		p.Trust = level
		if err := r.Register(p, []abi.ToolDef{tool("t", "1.0.0")}); err != nil {
			t.Fatal(err)
		}
		if e, err := r.Resolve("t", "^1"); err != nil || e.ver != "1.0.0" {
			t.Errorf("trust %s: ^1 resolved to %v, %v", level, e, err)
		}
	}
}
