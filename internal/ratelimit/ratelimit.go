// Package ratelimit is the host's token bucket: a lock-free implementation
// of the Generic Cell Rate Algorithm (GCRA), which admits exactly the calls
// a token bucket of the same rate and burst admits.
//
// Why not golang.org/x/time/rate, which the host used first: its Limiter
// takes a mutex and does float and time.Time arithmetic on every call, and
// cannot give a token back without allocating a reservation per call.
// Measured on the 2-core VM (docs/performance.md, "Rate limiters"), the
// native pipeline with three limiters (caller, tool, global) is about
// 0.1 µs a call faster with this one (12–20 %). This one keeps its whole state in one atomic int64 — the
// theoretical arrival time (TAT) of the next call — and takes a token with
// one load and one compare-and-swap, in integer arithmetic. The tests check
// its decisions against x/time/rate's.
//
// The algorithm: each token is worth interval = 1/rate of time. A call at
// time t is admitted when max(TAT, t) + interval - t <= burst × interval,
// and then TAT becomes max(TAT, t) + interval. A limiter idle for
// burst × interval holds its full burst again.
package ratelimit

import (
	"math"
	"sync/atomic"
	"time"
)

// unitsPerSecond is the limiter's clock: 1/16 ns, so an interval is exact
// to 1/32 ns (rates up to 1.6e10/s are told apart; any higher rate counts
// as 1.6e10/s, more calls than a host can make). Time is counted from the
// process's start (the monotonic clock); int64 units last 18 years.
const unitsPerSecond = 16e9

// maxSpan bounds an interval and a tolerance so that the sums in Allow
// cannot overflow.
const maxSpan = math.MaxInt64 / 4

// epoch is the time every limiter's clock counts from.
var epoch = time.Now()

// Limiter is a token bucket of perSecond tokens a second holding at most
// burst tokens. It starts full. It is safe for concurrent use.
type Limiter struct {
	tat       atomic.Int64 // the next call's theoretical arrival time (units since epoch)
	interval  int64        // units per token, >= 1
	tolerance int64        // how far TAT may run ahead of now: burst × interval
	perSecond float64
	burst     int
	// Name says what set the limit (the host: its config key), for the
	// error of a refused call. Set it before the limiter is shared.
	Name string
	// shift coarsens the clock of a slow limiter: its units are 2^shift
	// of the clock's (see New).
	shift uint8
	// The padding makes a Limiter exactly one 64-byte cache line (its
	// size class is 64-byte aligned), so the compare-and-swap of one
	// limiter never evicts an unrelated object from another core's cache
	// (false sharing measured at -cpu 2: Registry.Resolve slowed 2.5×).
	_ [64 - 57]byte
}

// New returns a limiter of perSecond tokens a second and a bucket of burst
// tokens. perSecond must be positive and burst at least 1 (config
// validation guarantees both; smaller values are raised to the minimum).
func New(perSecond float64, burst int) *Limiter {
	burst = max(burst, 1)
	iv := math.Round(unitsPerSecond / perSecond) // +Inf for a rate of 0
	// A bucket that takes longer than maxSpan to fill (a slow rate with a
	// large burst: {per_second: 1e-8, burst: 100}, a quota of 100 calls
	// that earns one back every three years) counts time in coarser
	// units, 2^shift of the clock's, so that its whole burst fits: cut to
	// maxSpan it held a single token. The coarser units are still less
	// than a millionth of its interval. A bucket that would need them
	// coarser than that (a burst beyond 2^41) keeps a tolerance of
	// maxSpan, more calls than a host makes.
	var shift uint8
	if perSecond > 0 {
		for shift < 62 && float64(burst)*iv > float64(maxSpan)*math.Ldexp(1, int(shift)) &&
			iv >= math.Ldexp(1, int(shift)+21) {
			shift++
		}
		iv = math.Round(iv / math.Ldexp(1, int(shift)))
	}
	interval := int64(maxSpan)
	if perSecond > 0 && iv < maxSpan {
		interval = max(int64(iv), 1)
	} else if shift == 62 {
		// A rate so slow (1e-300/s) that even the coarsest units
		// cannot hold its burst's time: a token every maxSpan/burst of
		// them is still never within the process's life.
		interval = max(maxSpan/int64(burst), 1)
	}
	tolerance := int64(maxSpan)
	if int64(burst) <= tolerance/interval {
		tolerance = interval * int64(burst)
	}
	return &Limiter{interval: interval, tolerance: tolerance, perSecond: perSecond, burst: burst, shift: shift}
}

// PerSecond is the limiter's rate; Burst its bucket size.
func (l *Limiter) PerSecond() float64 { return l.perSecond }

// Burst is the limiter's bucket size.
func (l *Limiter) Burst() int { return l.burst }

// units converts t to the limiter clock. t should come from time.Now (with
// its monotonic reading) so that wall-clock steps do not move it.
func units(t time.Time) int64 {
	d := t.Sub(epoch) // saturates instead of overflowing
	if d > math.MaxInt64/16 {
		return math.MaxInt64 / 16 * 16
	}
	if d < math.MinInt64/16 {
		return math.MinInt64 / 16 * 16
	}
	return int64(d) * 16
}

// Allow takes one token at time now. When the bucket is empty it takes
// nothing and returns false and the time until it holds a token again.
func (l *Limiter) Allow(now time.Time) (ok bool, retry time.Duration) {
	t := units(now) >> l.shift
	for {
		tat := l.tat.Load()
		next := max(tat, t) + l.interval
		if over := next - t - l.tolerance; over > 0 {
			if over > math.MaxInt64>>l.shift-15 {
				return false, math.MaxInt64 // past what a Duration holds
			}
			return false, time.Duration((over<<l.shift + 15) / 16)
		}
		if l.tat.CompareAndSwap(tat, next) {
			return true, 0
		}
	}
}

// Refund gives back the token of an Allow that returned true, as if the
// call had not happened: for a call that a later limiter refused. A refund
// never fills the bucket past its burst (it only moves TAT back by one
// interval, and a TAT in the past counts as a full bucket).
func (l *Limiter) Refund() {
	l.tat.Add(-l.interval)
}

// RefundLate gives back, at time now, the token of an Allow(at) that
// returned true, for a call that was never served after all but left
// later than at once (inference.rate's token of a completion that waited
// for a place until its deadline). Within one interval of at it is
// Refund. Later it gives nothing back: the bucket may have been full in
// the meantime, with that token back by itself, and other calls drawn on
// it since, so a refund then added a token the bucket never lent (at 1/s
// with a burst of 1, two calls let through in one instant).
func (l *Limiter) RefundLate(at, now time.Time) {
	if (units(now)-units(at))>>l.shift < l.interval {
		l.Refund()
	}
}
