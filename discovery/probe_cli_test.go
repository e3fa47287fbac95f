package discovery

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestProbeNegativeDurations: a negative discovery.debounce or
// remote_refresh was taken as "unset" (the default) without a word.
func TestProbeNegativeDurations(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"discovery:\n  debounce: -1s\n", "c.yaml:2: discovery.debounce: "},
		{"discovery:\n  remote_refresh: -5m\n", "c.yaml:2: discovery.remote_refresh: "},
	} {
		cfg, err := config.Parse([]byte(tc.yaml), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
	cfg, err := config.Parse([]byte("discovery:\n  debounce: 0s\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := LoadConfig(cfg); err != nil || c.Debounce != DefaultDebounce {
		t.Errorf("debounce 0s: %v, %v", c.Debounce, err)
	}
}
