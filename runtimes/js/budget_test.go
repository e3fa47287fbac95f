package js

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/proclimit"
)

// budgetSource returns an array of 5 000 000 empty objects: a 5 MB
// MessagePack frame (15 MB of JSON), within the frame limit (64 MiB) and
// the worker's memory, that would decode to about 305 MiB of Go maps in
// the host, above wire.DecodeBudget (256 MiB).
const budgetSource = `
aios.registerTool({name: 'amp', description: 'many small values', parameters: {type: 'object'}}, () => new Array(5_000_000).fill({}));
aios.registerTool({name: 'echo', description: 'echo', parameters: {type: 'object'}}, (p) => p);
`

// TestProcessDecodeBudget: a worker process's result that is small on the
// wire but would decode to more host memory than wire.DecodeBudget is
// refused before it is decoded (the call fails with ProviderCrashed naming
// the estimate, the worker is replaced), in both wire formats; the host's
// heap does not grow by the decoded size, and the next call is served.
func TestProcessDecodeBudget(t *testing.T) {
	for _, wf := range []string{"msgpack", "json"} {
		t.Run(wf, func(t *testing.T) {
			opts := Options{Wire: wf}
			if proclimit.Race {
				// The race detector's shadow memory of the worker's 5 M
				// maps does not fit the default 1 GiB.
				opts.ProcessMemory = 4 << 30
			}
			p := loadIsolated(t, opts, budgetSource)
			if p.Wire() != wf {
				t.Fatalf("the worker speaks %s, want %s", p.Wire(), wf)
			}
			first := p.PID()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := callIsolated(t, p, newFakeEnv(), "amp", nil, 2*time.Minute)
			runtime.ReadMemStats(&after)
			te := wantCode(t, err, abi.ProviderCrashed)
			t.Logf("%s; the host allocated %d MiB meanwhile", te.Message, (after.TotalAlloc-before.TotalAlloc)>>20)
			for _, want := range []string{"amp: its JS worker process was killed: a frame of ", "would decode to more than the 256 MiB of host memory a frame may take"} {
				if !strings.Contains(te.Message, want) {
					t.Fatalf("the error does not say %q: %q", want, te.Message)
				}
			}
			// The frame itself (5 or 15 MB) is read; its 305 MiB of maps
			// are not made.
			if alloc := (after.TotalAlloc - before.TotalAlloc) >> 20; alloc > 100 {
				t.Errorf("one call with a %s result frame of empty objects cost the host %d MiB", wf, alloc)
			}
			got, err := callIsolated(t, p, newFakeEnv(), "echo", map[string]any{"after": "budget"}, time.Minute)
			if err != nil || !reflect.DeepEqual(got, map[string]any{"after": "budget"}) {
				t.Fatalf("the call after the refusal: %#v, %v", got, err)
			}
			if p.PID() == first || p.Started() != 2 {
				t.Fatalf("worker pid %d (first %d), %d started: want the refusing worker replaced", p.PID(), first, p.Started())
			}
		})
	}
}
