package config

import (
	"strings"
	"testing"
)

// TestSubMillisecondDeadlineRefused: a call's deadline is whole
// milliseconds (call --timeout is at least 1ms), but a
// limits.default_deadline or max_deadline below 1ms (1us, 500us) was
// taken: every call then failed with "did not finish within its deadline
// of 0s", a deadline the file never gave. Below 1ms is refused, naming
// the line and key; 1ms is taken.
func TestSubMillisecondDeadlineRefused(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"limits:\n  default_deadline: 1us\n", "c.yaml:2: limits.default_deadline: 1µs is below 1ms"},
		{"limits:\n  default_deadline: 500us\n  max_deadline: 500us\n", "c.yaml:2: limits.default_deadline: 500µs is below 1ms"},
		{"limits:\n  default_deadline: 1ms\n  max_deadline: 900us\n", "c.yaml:3: limits.max_deadline: 900µs is below 1ms"},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
	c, err := Parse([]byte("limits:\n  default_deadline: 1ms\n  max_deadline: 1ms\n"), "c.yaml")
	if err != nil || c.Limits.DefaultDeadline.String() != "1ms" {
		t.Errorf("1ms: %v", err)
	}
}
