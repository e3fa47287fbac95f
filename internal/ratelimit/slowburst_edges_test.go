package ratelimit

import (
	"testing"
	"time"
)

// TestSlowRateKeepsItsBurst: a bucket whose burst takes longer than the
// clock's span (about 4.5 years) to refill — a quota such as
// {per_second: 1e-8, burst: 100}, 100 calls and then about one every three
// years — admitted one call and refused the rest: its tolerance was cut
// to the span, a bucket of one token, while the refusal said "burst 100".
// It admits its whole burst at once, then nothing until a token is earned,
// and says when that is.
func TestSlowRateKeepsItsBurst(t *testing.T) {
	now := at(time.Minute)
	for _, tc := range []struct {
		perSecond float64
		burst     int
	}{
		{1e-8, 100},
		{1e-6, 1000},
		{1e-3, 1_000_000_000},
		{1e-12, 3},
		{1e-300, 5},
	} {
		l := New(tc.perSecond, tc.burst)
		for i := range tc.burst {
			if ok, _ := l.Allow(now); !ok {
				t.Fatalf("rate %v/s, burst %d: call %d of the burst refused", tc.perSecond, tc.burst, i+1)
			}
			if i == 1000 {
				break // a huge burst: the first thousand tell
			}
		}
		if tc.burst > 1001 {
			continue
		}
		ok, retry := l.Allow(now)
		if ok {
			t.Fatalf("rate %v/s, burst %d: a call past the burst admitted", tc.perSecond, tc.burst)
		}
		// The next token comes one interval (1/rate) after the first
		// call, or never within a time.Duration (292 years).
		want := time.Duration(float64(time.Second) / tc.perSecond)
		if float64(time.Second)/tc.perSecond > float64(1<<63-1) {
			want = 1<<63 - 1
		}
		if d := retry - want; d < -want/1000 || d > want/1000 {
			t.Errorf("rate %v/s, burst %d: retry %v, want %v", tc.perSecond, tc.burst, retry, want)
		}
		if want < 1<<62 {
			if ok, _ := l.Allow(now.Add(retry - retry/1000)); ok {
				t.Errorf("rate %v/s, burst %d: admitted before the retry time", tc.perSecond, tc.burst)
			}
			if ok, _ := l.Allow(now.Add(retry)); !ok {
				t.Errorf("rate %v/s, burst %d: refused at the retry time %v", tc.perSecond, tc.burst, retry)
			}
		}
	}
}
