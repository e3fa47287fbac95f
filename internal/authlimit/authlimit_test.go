package authlimit

import (
	"fmt"
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	now := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	l := New(3, time.Minute)
	l.now = func() time.Time { return now }
	for i := 1; i <= 3; i++ {
		if _, b := l.Blocked("a"); b {
			t.Fatalf("blocked after %d failures, limit 3", i-1)
		}
		if reached := l.Fail("a"); reached != (i == 3) {
			t.Fatalf("failure %d: reached %v", i, reached)
		}
	}
	left, b := l.Blocked("a")
	if !b || left != time.Minute {
		t.Fatalf("after 3 failures: blocked %v for %v, want a minute", b, left)
	}
	if _, b := l.Blocked("b"); b {
		t.Fatal("another address is blocked")
	}
	now = now.Add(40 * time.Second)
	if left, b := l.Blocked("a"); !b || left != 20*time.Second {
		t.Fatalf("40 s on: blocked %v for %v, want 20 s", b, left)
	}
	now = now.Add(20 * time.Second)
	if _, b := l.Blocked("a"); b {
		t.Fatal("still blocked when the window ended")
	}
	// A new window counts from zero.
	l.Fail("a")
	if _, b := l.Blocked("a"); b {
		t.Fatal("blocked after one failure of a new window")
	}
}

func TestKey(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:5000":               "127.0.0.1",
		"[::1]:80":                     "::/64",
		"[2001:db8:1:2:3:4:5:6]:443":   "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443":   "2001:db8:1:2::/64",
		"[::ffff:10.0.0.1]:1":          "10.0.0.1",
		"not an address":               "not an address",
		"@":                            "@",
		"[2001:db8:1:3::1]:443":        "2001:db8:1:3::/64",
		"192.0.2.7":                    "192.0.2.7",
		"[fe80::1%eth0]:8080":          "fe80::1%eth0",
		"2001:db8:1:2:3:4:5:6":         "2001:db8:1:2::/64",
		"[2001:db8:aaaa:bbbb::9]:1234": "2001:db8:aaaa:bbbb::/64",
	} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTrackedBounded: addresses past the bound evict others, the ones
// under the limit first; a refused address stays refused.
func TestTrackedBounded(t *testing.T) {
	l := New(2, time.Minute)
	l.tracked = 100
	l.Fail("bad")
	l.Fail("bad")
	for i := range 1000 {
		l.Fail(fmt.Sprint("10.0.", i/256, ".", i%256))
		if len(l.m) > l.tracked {
			t.Fatalf("%d addresses tracked, bound %d", len(l.m), l.tracked)
		}
	}
	if _, b := l.Blocked("bad"); !b {
		t.Fatal("a refused address was evicted by addresses under the limit")
	}
}
