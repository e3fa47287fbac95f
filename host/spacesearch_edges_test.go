package host

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// A read by id alone, by a caller granted ReadSpace(*) (the CLI's default
// agent) of a provider holding ReadSpace(*), on a store that has no space
// yet (a fresh host), was refused CapabilityDenied "no space is readable by
// both caller and provider": both may read every space, so the object is
// not found.
func TestSearchWildcardEmptyStoreIsNotFound(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Agents["wild"] = config.Agent{Grants: []string{"CallTool(*)", "ReadSpace(*)"}}
	})
	id := "sha256:" + strings.Repeat("0", 64)
	_, err := te.call("wild", "read", map[string]any{"space": "", "id": id})
	if abi.CodeOf(err) != abi.NotFound {
		t.Fatalf("search of an empty store by ReadSpace(*) = %v, want NotFound", err)
	}
	// A caller with no ReadSpace at all is still refused.
	te2 := newTestHost(t, func(c *config.Config) {
		c.Agents["none"] = config.Agent{Grants: []string{"CallTool(*)"}}
	})
	if _, err := te2.call("none", "read", map[string]any{"space": "", "id": id}); abi.CodeOf(err) != abi.CapabilityDenied {
		t.Fatalf("search by a caller without ReadSpace = %v, want CapabilityDenied", err)
	}
}
