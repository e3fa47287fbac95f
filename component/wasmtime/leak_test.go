//go:build wasmtime

package wasmtime

import (
	"context"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

func probeRSS() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

func probeFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// TestLeakComponentsClosed loads, calls and closes components on one
// wasmtime loader many times (hot reloads): fds and RSS must not grow
// with the number of loads.
func TestLeakComponentsClosed(t *testing.T) {
	l := newLoader(t, Options{})
	name := "hello"
	if v := os.Getenv("PROBE_COMPONENT"); v != "" {
		name = v
	}
	path := sample(t, name)
	cycle := func() {
		p, err := l.Load(context.Background(), abi.Source{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		for _, td := range p.Describe().Tools {
			_, _ = p.Call(context.Background(), &abi.ToolCall{Tool: td.Name, Params: map[string]any{"a": int64(1), "b": int64(2), "name": "x"}}, nil)
		}
		_ = p.Close()
	}
	// settle collects until at most wantFDs are open, or 30 s: the
	// components are freed by finalizers, which a loaded machine (-race,
	// 2 busy cores) may run well after the three collections of 20 ms
	// this waited before.
	settle := func(wantFDs int) (int, int64) {
		n := 0
		for end := time.Now().Add(30 * time.Second); ; {
			runtime.GC()
			time.Sleep(20 * time.Millisecond)
			if n++; n >= 3 && (probeFDs() <= wantFDs || time.Now().After(end)) {
				return probeFDs(), probeRSS()
			}
		}
	}
	for range 3 {
		cycle()
	}
	f0, r0 := settle(math.MaxInt) // three collections
	n := 30
	if v, err := strconv.Atoi(os.Getenv("PROBE_N")); err == nil {
		n = v
	}
	for range n {
		cycle()
	}
	f1, r1 := settle(f0 + 2)
	t.Logf("fds %d -> %d, RSS %d -> %d KiB after %d loads and closes", f0, f1, r0, r1, n)
	if f1 > f0+2 || r1 > r0+32<<10 {
		t.Errorf("after %d loads and closes: fds %d -> %d, RSS %d -> %d KiB", n, f0, f1, r0, r1)
	}
}
