package ratelimit

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/time/rate"
)

// at is a time d after the limiter clock's epoch.
func at(d time.Duration) time.Time { return epoch.Add(d) }

func TestStartsFullThenRefuses(t *testing.T) {
	l := New(10, 3) // a token every 100ms
	now := at(time.Second)
	for i := range 3 {
		if ok, _ := l.Allow(now); !ok {
			t.Fatalf("call %d of the burst refused", i+1)
		}
	}
	ok, retry := l.Allow(now)
	if ok {
		t.Fatal("fourth call at the same instant admitted; burst is 3")
	}
	if retry != 100*time.Millisecond {
		t.Fatalf("retry = %v, want 100ms", retry)
	}
	if ok, _ := l.Allow(now.Add(retry - time.Nanosecond)); ok {
		t.Fatal("admitted before the retry time")
	}
	if ok, _ := l.Allow(now.Add(retry)); !ok {
		t.Fatal("refused at the retry time")
	}
	// Idle for burst × interval: full again.
	later := now.Add(retry + 300*time.Millisecond)
	for i := range 3 {
		if ok, _ := l.Allow(later); !ok {
			t.Fatalf("after idling, call %d refused", i+1)
		}
	}
	if ok, _ := l.Allow(later); ok {
		t.Fatal("burst exceeded after idling")
	}
}

func TestRefund(t *testing.T) {
	l := New(1, 1)
	now := at(time.Second)
	if ok, _ := l.Allow(now); !ok {
		t.Fatal("first call refused")
	}
	if ok, _ := l.Allow(now); ok {
		t.Fatal("second call admitted")
	}
	l.Refund()
	if ok, _ := l.Allow(now); !ok {
		t.Fatal("refunded token not available")
	}
	// A refund on a full bucket does not raise it above the burst.
	l2 := New(1, 2)
	l2.Refund()
	l2.Refund()
	n := 0
	for range 5 {
		if ok, _ := l2.Allow(now); ok {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("after refunds on a full bucket, %d calls admitted; burst is 2", n)
	}
}

// TestMatchesXTimeRate replays random arrival sequences on this limiter and
// on x/time/rate's, with the same rate and burst, and requires the same
// decision for every call. Arrival times are whole microseconds plus 7 ns
// and intervals whole microseconds, so no arrival falls exactly on a token
// boundary, where x/time/rate's float arithmetic may round either way.
func TestMatchesXTimeRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rates := []float64{1, 3, 10, 250, 1000, 4000, 1e6}
	for trial := range 200 {
		perSecond := rates[rng.IntN(len(rates))]
		burst := 1 + rng.IntN(20)
		ours := New(perSecond, burst)
		ref := rate.NewLimiter(rate.Limit(perSecond), burst)
		interval := time.Duration(float64(time.Second) / perSecond)
		now := at(time.Hour)
		for i := range 500 {
			// Gaps from 0 to 3 intervals, often bunched.
			gap := time.Duration(rng.Int64N(int64(3*interval)+1)) / time.Microsecond * time.Microsecond
			if rng.IntN(3) == 0 {
				gap = 0
			}
			now = now.Add(gap)
			tm := now.Add(7)
			got, retry := ours.Allow(tm)
			want := ref.AllowN(tm, 1)
			if got != want {
				t.Fatalf("trial %d (rate %v, burst %d) call %d at +%v: ours %v, x/time/rate %v", trial, perSecond, burst, i, tm.Sub(at(time.Hour)), got, want)
			}
			if !got {
				// x/time/rate's own wait for one token, for comparison.
				r := ref.ReserveN(tm, 1)
				wait := r.DelayFrom(tm)
				r.CancelAt(tm)
				if d := retry - wait; d < -time.Microsecond || d > time.Microsecond {
					t.Fatalf("trial %d: retry %v, x/time/rate waits %v", trial, retry, wait)
				}
			}
		}
	}
}

// TestConcurrentExactCount: goroutines racing at one instant get exactly
// the burst, no more (run with -race).
func TestConcurrentExactCount(t *testing.T) {
	const burst = 1000
	l := New(1, burst)
	now := at(time.Minute)
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 500 {
				if ok, _ := l.Allow(now); ok {
					admitted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := admitted.Load(); n != burst {
		t.Fatalf("%d calls admitted at one instant; burst is %d", n, burst)
	}
}

func TestExtremes(t *testing.T) {
	now := at(time.Second)
	// A rate above the clock's resolution: every call admitted within the burst.
	fast := New(1e15, 1<<30)
	for range 1000 {
		if ok, _ := fast.Allow(now); !ok {
			t.Fatal("1e15/s limiter refused within its burst")
		}
	}
	// A tiny rate and a huge burst must not overflow.
	slow := New(1e-9, math.MaxInt32)
	if ok, _ := slow.Allow(now); !ok {
		t.Fatal("full bucket of a slow limiter refused")
	}
	one := New(1e-9, 1)
	one.Allow(now)
	ok, retry := one.Allow(now)
	if ok || retry <= 0 {
		t.Fatalf("slow limiter: ok %v retry %v", ok, retry)
	}
	// Times far from the epoch saturate instead of wrapping.
	far := New(1, 1)
	if ok, _ := far.Allow(epoch.Add(200 * 365 * 24 * time.Hour)); !ok {
		t.Fatal("far-future call refused")
	}
	if ok, _ := far.Allow(time.Time{}); ok {
		t.Fatal("a call at the zero time after a far-future one admitted")
	}
	if New(0, 0).Burst() != 1 {
		t.Fatal("burst 0 not raised to 1")
	}
}

// FuzzLimiter checks the bucket's two promises for any rate, burst and
// sequence of arrival gaps: over any run of calls, no more are admitted
// than the burst plus the tokens earned meanwhile; and a refused call's
// retry time is right: one more call at that time is admitted.
func FuzzLimiter(f *testing.F) {
	f.Add(uint32(1000), uint16(5), []byte{0, 0, 0, 0, 0, 0, 0, 3, 200, 0, 1})
	f.Add(uint32(1), uint16(1), []byte{255, 255, 0, 9})
	f.Fuzz(func(t *testing.T, perSecond uint32, burst uint16, gaps []byte) {
		if perSecond == 0 || burst == 0 {
			return
		}
		l := New(float64(perSecond), int(burst))
		interval := l.interval // units
		start := at(time.Hour)
		now := start
		admitted := int64(0)
		for _, g := range gaps {
			now = now.Add(time.Duration(g) * time.Duration(interval) / 16 / 64)
			ok, retry := l.Allow(now)
			if ok {
				admitted++
				earned := (units(now) - units(start)) / interval
				if admitted > int64(burst)+earned+1 {
					t.Fatalf("%d admitted by %v; burst %d + %d earned", admitted, now.Sub(start), burst, earned)
				}
				continue
			}
			if retry <= 0 {
				t.Fatalf("refused with retry %v", retry)
			}
			if ok2, _ := l.Allow(now.Add(retry)); !ok2 {
				t.Fatalf("refused again at the retry time (+%v)", retry)
			}
			admitted++
			now = now.Add(retry)
		}
	})
}

func BenchmarkAllow(b *testing.B) {
	l := New(1e8, 1<<30)
	now := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Allow(now)
		}
	})
}

func BenchmarkXTimeRateAllow(b *testing.B) {
	l := rate.NewLimiter(1e8, 1<<30)
	now := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.AllowN(now, 1)
		}
	})
}

// TestLimiterFillsOneCacheLine guards the padding against false sharing
// (see Limiter).
func TestLimiterFillsOneCacheLine(t *testing.T) {
	if s := unsafe.Sizeof(Limiter{}); s != 64 {
		t.Fatalf("Limiter is %d bytes, want 64", s)
	}
}
