package discovery

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestDebounceBounded: a unit's reload waits up to ten times
// discovery.debounce after its first change, and any duration was taken:
// debounce: 1h held a changed plugin's old version for ten hours.
func TestDebounceBounded(t *testing.T) {
	cfg, err := config.Parse([]byte("data: /srv\ndiscovery:\n  debounce: 1h\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), "c.yaml:3: discovery.debounce: 1h0m0s is more than 10s") {
		t.Fatalf("got %v", err)
	}
	cfg, err = config.Parse([]byte("data: /srv\ndiscovery:\n  debounce: 10s\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(cfg); err != nil {
		t.Fatalf("debounce 10s: %v", err)
	}
}
