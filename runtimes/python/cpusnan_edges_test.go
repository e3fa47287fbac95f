package python_test

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestCPUsNotANumberRefused: runtimes.python.cpus: .nan passed the range
// check (every comparison with NaN is false) and the workers ran with no
// CPU limit (the control group's quota is set for cpus > 0 only), though
// the file asked for one. It is refused like any other value out of range.
func TestCPUsNotANumberRefused(t *testing.T) {
	for _, v := range []string{".nan", ".NaN", ".NAN"} {
		cfg, err := config.Parse([]byte("runtimes:\n  python:\n    cpus: "+v+"\n"), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		_, err = python.ConfigFrom(cfg)
		if err == nil || !strings.Contains(err.Error(), "runtimes.python.cpus: NaN: want 0 (no limit) or 0.01..4096 cores") {
			t.Errorf("cpus: %s: got %v, want it refused", v, err)
		}
	}
}
