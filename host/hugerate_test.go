package host

import (
	"math"
	"testing"
	"time"

	"github.com/aios-host/aios-host/config"
)

// A rate above the int range (per_second: 1e19, which the config accepts)
// had its default burst ⌈per_second⌉ converted to int by overflow
// (math.MinInt64 on amd64), then raised to 1: the "unlimited" bucket held
// one token, and two calls started in the same nanosecond were refused.
func TestHugeRateDefaultBurst(t *testing.T) {
	for _, ps := range []float64{1e10, 9.3e18, 1e19, 1e300, math.MaxFloat64} {
		r := config.Rate{PerSecond: ps}
		if b := r.BurstOf(); b < 1e9 {
			t.Errorf("per_second %g: BurstOf %d, want the largest int", ps, b)
		}
		l := newLimiter(&r, "rate_limits.global")
		if l.Burst() < 1e9 {
			t.Errorf("per_second %g: limiter burst %d, want ⌈per_second⌉ (clamped)", ps, l.Burst())
		}
		now := time.Now()
		for i := 0; i < 100; i++ {
			if ok, retry := l.Allow(now); !ok {
				t.Fatalf("per_second %g: call %d at one instant refused (retry %v)", ps, i, retry)
			}
		}
	}
}
