package testutil

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/aios-host/aios-host/internal/proc"
)

// Resources is what a long-running host holds that a leak makes grow:
// goroutines, open file descriptors, live and defunct child processes,
// the Go heap after collection and the resident set (Linux; 0 elsewhere).
type Resources struct {
	Goroutines, FDs, Children, Zombies int
	Heap                               uint64 // bytes
	RSS                                int64  // KiB
}

func (r Resources) String() string {
	return fmt.Sprintf("goroutines=%d fds=%d children=%d zombies=%d heap=%dKiB rss=%dKiB",
		r.Goroutines, r.FDs, r.Children, r.Zombies, r.Heap>>10, r.RSS)
}

// TakeResources measures this process after two collections.
func TakeResources() Resources {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	live, z := Children()
	r := Resources{Goroutines: runtime.NumGoroutine(), FDs: FDs(), Children: len(live), Zombies: z, Heap: ms.HeapAlloc}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				r.RSS, _ = strconv.ParseInt(f[1], 10, 64)
			}
		}
	}
	return r
}

// FDs counts this process's open file descriptors (Linux; 0 elsewhere).
func FDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// Children lists the live child processes of this process and counts the
// defunct ones (Linux /proc; none elsewhere).
func Children() (live []int, zombies int) {
	for _, c := range proc.Children() {
		if c.Zombie {
			zombies++
		} else {
			live = append(live, c.PID)
		}
	}
	return live, zombies
}

// SettleGoroutines waits up to d for the goroutine count (after a
// collection) to come down to want, and returns the last count.
func SettleGoroutines(want int, d time.Duration) int {
	end := time.Now().Add(d)
	for {
		runtime.GC()
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(end) {
			return n
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Settle waits up to d for at most want goroutines and no child process,
// live or defunct, and returns the last measure.
func Settle(want int, d time.Duration) Resources {
	end := time.Now().Add(d)
	for {
		r := TakeResources()
		if (r.Goroutines <= want && r.Children == 0 && r.Zombies == 0) || time.Now().After(end) {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// GoroutineDump is every goroutine's stack, grouped (for a leak's report).
func GoroutineDump() string {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
	return b.String()
}
