package discovery

import (
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// BenchmarkHotReload: a provider file is rewritten (new version, atomic
// rename) → the registry's tools_changed event is delivered to a
// subscriber (what the server forwards as aios/notification.tools_changed).
// It includes the default 50 ms debounce. Reports p50 and p95 in ms.
func BenchmarkHotReload(b *testing.B) {
	env := newEnv(b, "", nil)
	path := filepath.Join(env.dir, "bench.fake")
	writeFake(b, path, fakeSpec{ID: "org.test.bench", Version: "1.0.0", Tools: []string{"bench"}})
	testutil.Eventually(b, "bench loaded", func() bool { return env.h.Registry().Provider("org.test.bench") != nil })
	events, cancel := env.h.Registry().Subscribe(16)
	defer cancel()
	var lat []time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		v := "1.1." + itoa(i)
		start := time.Now()
		writeFake(b, path, fakeSpec{ID: "org.test.bench", Version: v, Tools: []string{"bench"}})
		for done := false; !done; {
			select {
			case ev := <-events:
				for _, r := range append(ev.Added, ev.Updated...) {
					if r.Name == "bench" && r.Version == v {
						done = true
					}
				}
			case <-time.After(5 * time.Second):
				b.Fatalf("no tools_changed for version %s", v)
			}
		}
		lat = append(lat, time.Since(start))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
	}
}
