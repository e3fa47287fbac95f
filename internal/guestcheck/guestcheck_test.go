package guestcheck

import (
	"context"
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	past, future := time.Now().Add(-time.Second), time.Now().Add(time.Hour)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), past)
	defer cancel2()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		dl   time.Time
		want Verdict
	}{
		{"running", context.Background(), future, GoOn},
		{"no ctx, no deadline", nil, time.Time{}, GoOn},
		{"deadline passed", nil, past, Deadline},
		{"caller cancelled", cancelled, future, Cancelled},
		{"ctx deadline passed", expired, future, Deadline},
	} {
		if got := Check(tc.ctx, tc.dl); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
