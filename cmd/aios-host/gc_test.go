package main

import (
	"bufio"
	"runtime/debug"
	"strings"
	"testing"
)

func TestParseMemTotal(t *testing.T) {
	cases := []struct {
		in   string
		want int64
	}{
		{"MemTotal:       24573012 kB\nMemFree: 1 kB\n", 24573012 << 10},
		{"MemFree: 1 kB\nMemTotal: 1024 kB\n", 1 << 20},
		{"MemTotal: lots kB\n", fallbackMemory},
		{"MemTotal: 12 MB\n", fallbackMemory},
		{"", fallbackMemory},
	}
	for _, c := range cases {
		if got := parseMemTotal(bufio.NewScanner(strings.NewReader(c.in))); got != c.want {
			t.Errorf("parseMemTotal(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestApplyServeGC(t *testing.T) {
	oldPct := debug.SetGCPercent(100)
	oldLim := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(oldPct); debug.SetMemoryLimit(oldLim) })

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	p := applyServeGC()
	if got := debug.SetGCPercent(100); got != serveGCPercent || p.Percent != "400" {
		t.Fatalf("GC percent %d (%q), want %d", got, p.Percent, serveGCPercent)
	}
	if lim := debug.SetMemoryLimit(-1); lim < minServeMemory || !strings.HasSuffix(p.MemLimit, "GiB") {
		t.Fatalf("memory limit %d (%q), want ≥ %d", lim, p.MemLimit, minServeMemory)
	}

	// The environment wins: nothing is changed.
	debug.SetMemoryLimit(1 << 40)
	t.Setenv("GOGC", "50")
	t.Setenv("GOMEMLIMIT", "1GiB")
	p = applyServeGC()
	if got := debug.SetGCPercent(100); got != 100 || p.Percent != "GOGC=50" {
		t.Fatalf("with GOGC set: percent %d (%q)", got, p.Percent)
	}
	if lim := debug.SetMemoryLimit(-1); lim != 1<<40 || p.MemLimit != "GOMEMLIMIT=1GiB" {
		t.Fatalf("with GOMEMLIMIT set: limit %d (%q)", lim, p.MemLimit)
	}
}
