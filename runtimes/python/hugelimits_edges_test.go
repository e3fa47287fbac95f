package python_test

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestHugeLimitsRefused: memory_mb and cpu_seconds past what a worker's
// limits hold in bytes and in a time.Duration were taken and overflowed:
// memory_mb: 17592186044417 (2^44+1, "no limit, really") became an
// address-space limit of 1 MiB, in which no interpreter starts, and
// cpu_seconds: 10000000000 a negative CPU budget, which replaced the
// worker after every call. Each is refused naming the key, and 0 (no
// limit) is said.
func TestHugeLimitsRefused(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"runtimes:\n  python:\n    memory_mb: 17592186044417\n", "runtimes.python.memory_mb: 17592186044417 is more than"},
		{"runtimes:\n  python:\n    cpu_seconds: 10000000000\n", "runtimes.python.cpu_seconds: 10000000000 is more than"},
	} {
		cfg, err := config.Parse([]byte(tc.doc), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		_, err = python.ConfigFrom(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "0 for no limit") {
			t.Errorf("%q: got %v, want %q… 0 for no limit", tc.doc, err, tc.want)
		}
	}
	// The largest taken still is.
	cfg, err := config.Parse([]byte("runtimes:\n  python:\n    memory_mb: 4194304\n    cpu_seconds: 4294967296\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := python.ConfigFrom(cfg); err != nil || c.MemoryMB != 4194304 || c.CPUSeconds != 4294967296 {
		t.Errorf("the largest limits: %+v, %v", c, err)
	}
}
