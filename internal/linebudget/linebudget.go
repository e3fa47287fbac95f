// Package linebudget limits how many lines a second a guest may put in the
// host log (Python stderr and ctx.log, JS console and ctx.log), counting and
// reporting the lines it suppresses.
package linebudget

import (
	"sync"
	"time"
)

// Budget lets at most perSecond lines a second through (a window
// starts at the first line after the previous one ended); the lines over
// the budget are counted and reported with report at the end of their
// window by a timer, so the report comes within a second of the first
// suppressed line even if the source goes quiet.
type Budget struct {
	perSecond int
	report    func(dropped int)

	mu      sync.Mutex
	window  time.Time
	passed  int
	dropped int
	timer   *time.Timer
}

// New returns a Budget of perSecond lines; report gets the number of
// lines suppressed in a window.
func New(perSecond int, report func(dropped int)) *Budget {
	return &Budget{perSecond: perSecond, report: report}
}

// Allow reports whether one more line may be logged now.
func (b *Budget) Allow() bool {
	now := time.Now()
	b.mu.Lock()
	var flushed int
	if now.Sub(b.window) >= time.Second {
		flushed = b.takeLocked()
		b.window, b.passed = now, 0
	}
	ok := b.passed < b.perSecond
	if ok {
		b.passed++
	} else {
		b.dropped++
		if b.timer == nil {
			b.timer = time.AfterFunc(b.window.Add(time.Second).Sub(now), b.Flush)
		}
	}
	b.mu.Unlock()
	if flushed > 0 {
		b.report(flushed)
	}
	return ok
}

// takeLocked returns and resets the count of suppressed lines, stopping
// the timer.
func (b *Budget) takeLocked() int {
	n := b.dropped
	b.dropped = 0
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	return n
}

// Flush reports the lines suppressed so far (the timer, and the end of
// the source).
func (b *Budget) Flush() {
	b.mu.Lock()
	n := b.takeLocked()
	b.mu.Unlock()
	if n > 0 {
		b.report(n)
	}
}
