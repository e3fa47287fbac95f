package wire

import (
	"runtime"
	"strings"
	"testing"
)

// (Found by a probe.) a worker's hello frame (read with the 64 MiB frame limit) is
// decoded by ParseWorkerHello without CheckCost: a "formats" list of
// empty strings costs the host several times the frame.
func TestHelloDecodeBudget(t *testing.T) {
	n := 10_000_000
	frame := []byte(`{"v":1,"kind":"hello","formats":[` + strings.Repeat(`"",`, n) + `"json"]}`)
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f, err := ParseWorkerHello("w", frame)
	runtime.ReadMemStats(&b)
	alloc := int64(b.TotalAlloc-a.TotalAlloc) >> 20
	t.Logf("hello of %d MiB: %d formats, err %v, host allocated %d MiB; CheckCost says %v", len(frame)>>20, len(f), err, alloc, CheckCost(frame, "json", DecodeBudget))
	if alloc > 3*int64(len(frame)>>20) {
		t.Errorf("a %d MiB hello cost the host %d MiB to parse (no decode budget on the hello)", len(frame)>>20, alloc)
	}
}
