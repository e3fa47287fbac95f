package wire_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/wire"
)

// (Found by a probe.) the Python worker's JSON wire (abi.JSON: UseNumber, then
// normalization) allocates several times CheckCost's estimate for
// results of numbers and for objects with many keys, so a frame just under
// the budget cost the host several times it (the estimate now counts them).
func TestJSONEnvelopeCostVsReal(t *testing.T) {
	n := 1_000_000
	var keys strings.Builder
	keys.WriteString("{")
	for i := 0; i < n; i++ {
		if i > 0 {
			keys.WriteString(",")
		}
		fmt.Fprintf(&keys, `"%x":0`, i)
	}
	keys.WriteString("}")
	cases := map[string]string{
		"numbers":    "[" + strings.Repeat("1000,", n) + "0]",
		"floats":     "[" + strings.Repeat("1.5,", n) + "0]",
		"keys":       keys.String(),
		"empties":    "[" + strings.Repeat("{},", n) + "{}]",
		"ws+escapes": "[" + strings.Repeat(`"\u0041" ,`, n) + `""]`,
	}
	for name, v := range cases {
		frame := []byte(`{"v":1,"kind":"result","id":"1","result":{"call_id":"1","value":` + v + `}}`)
		est, _ := wire.ProbeJSONCost(frame, 1<<62)
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		var env abi.Envelope
		err := abi.JSON.Unmarshal(frame, &env)
		runtime.ReadMemStats(&b)
		real := int64(b.TotalAlloc - a.TotalAlloc)
		ratio := float64(real) / float64(est)
		t.Logf("%-10s frame %8d B est %10d real %10d ratio %.2f err %v", name, len(frame), est, real, ratio, err)
		if ratio > 2.5 {
			t.Errorf("%s: abi.JSON decoding allocates %.1fx CheckCost's estimate (a frame at the budget: ~%d MiB)", name, ratio, int64(ratio*128))
		}
	}
}
