package ratelimit

import (
	"testing"
	"time"
)

// TestLateRefundAdmitsNoMore: a token given back long after it was taken
// (inference.rate's, by a completion that waited for one of
// inference.max_concurrent places until its deadline and was never sent)
// was added to a bucket that had refilled meanwhile and been drawn on by
// other calls, so it let through more than the rate: at 1/s with a burst
// of 1, two requests in the same instant. A refund more than one interval
// after its Allow gives nothing back (the bucket may have been full since,
// with that token back by itself); within one it gives the token back as
// before.
func TestLateRefundAdmitsNoMore(t *testing.T) {
	l := New(1, 1)
	t0 := time.Now()
	if ok, _ := l.Allow(t0); !ok {
		t.Fatal("first Allow refused")
	}
	// 30 s later (the first waited, unsent): the bucket holds its one token again.
	t1 := t0.Add(30 * time.Second)
	if ok, _ := l.Allow(t1); !ok {
		t.Fatal("Allow after 30 s refused")
	}
	l.RefundLate(t0, t1)
	if ok, _ := l.Allow(t1); ok {
		t.Fatal("a late refund let a second call through in the same instant at 1/s, burst 1")
	}

	// Within one interval the token is given back.
	l = New(1, 1)
	if ok, _ := l.Allow(t0); !ok {
		t.Fatal("first Allow refused")
	}
	l.RefundLate(t0, t0.Add(500*time.Millisecond))
	if ok, _ := l.Allow(t0.Add(500 * time.Millisecond)); !ok {
		t.Fatal("a refund half an interval after its Allow did not give the token back")
	}
}
