package linebudget

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestBudget(t *testing.T) {
	var reported atomic.Int64
	b := New(10, func(n int) { reported.Add(int64(n)) })
	passed := 0
	for range 25 {
		if b.Allow() {
			passed++
		}
	}
	if passed != 10 {
		t.Fatalf("%d lines passed, want 10", passed)
	}
	// The 15 suppressed lines are reported by the window's timer.
	deadline := time.Now().Add(3 * time.Second)
	for reported.Load() != 15 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := reported.Load(); got != 15 {
		t.Fatalf("reported %d suppressed lines, want 15", got)
	}
	if !b.Allow() {
		t.Fatal("a new window refused its first line")
	}
	b.Flush()
}
