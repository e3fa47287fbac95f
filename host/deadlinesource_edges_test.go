package host

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// TestTimeoutNamesDeadlineSetting: a call that ran out of a deadline the
// config set — limits.default_deadline when the caller gave none, or
// limits.max_deadline when it cut a longer one the caller asked for — was
// refused with Timeout saying only that the tool did not finish (or, for a
// tool returning its context's error, "context deadline exceeded"),
// naming neither the deadline nor the setting: a caller that asked for an
// hour and was stopped at the cap could not tell why, nor an operator
// which key to raise. The message now names the setting and its value; a
// deadline the caller chose itself is its own and names none.
func TestTimeoutNamesDeadlineSetting(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) {
		c.Limits.DefaultDeadline = 150 * time.Millisecond
		c.Limits.MaxDeadline = 300 * time.Millisecond
	})
	for _, tc := range []struct {
		name     string
		deadline time.Time
		want     []string
		not      []string
	}{
		{"no deadline given", time.Time{}, []string{"sleep", "limits.default_deadline", "150ms"}, []string{"limits.max_deadline"}},
		{"an hour asked", time.Now().Add(time.Hour), []string{"sleep", "limits.max_deadline", "300ms"}, []string{"limits.default_deadline"}},
		{"its own deadline", time.Now().Add(100 * time.Millisecond), []string{"sleep"}, []string{"limits.default_deadline", "limits.max_deadline"}},
	} {
		_, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "sleep", Deadline: tc.deadline})
		if abi.CodeOf(err) != abi.Timeout {
			t.Fatalf("%s: %v, want Timeout", tc.name, err)
		}
		msg := err.Error()
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: Timeout says %q, want it to name %q", tc.name, msg, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(msg, n) {
				t.Errorf("%s: Timeout says %q, which names %q", tc.name, msg, n)
			}
		}
	}
}
