package wire

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	mpw "github.com/aios-host/aios-host/guest/go/wire"
)

func allocOf(f func()) int64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return int64(b.TotalAlloc - a.TotalAlloc)
}

func mpArray32(n int, elem []byte) []byte {
	b := []byte{0xdd, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	for i := 0; i < n; i++ {
		b = append(b, elem...)
	}
	return b
}

// (Found by a probe.) the estimate against what decoding really allocates, per shape.
// Shapes where the real cost is more than twice the estimate let a frame
// under the budget cost the host several times the budget.
func TestCostEstimateVsReal(t *testing.T) {
	n := 1_000_000
	// a map of n distinct keys
	mk := []byte{0xdf, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("%x", i)
		mk = append(mk, byte(0xa0|len(k)))
		mk = append(mk, k...)
		mk = append(mk, 0xc0)
	}
	var jk strings.Builder
	jk.WriteString("{")
	for i := 0; i < n; i++ {
		if i > 0 {
			jk.WriteString(",")
		}
		fmt.Fprintf(&jk, `"%x":0`, i)
	}
	jk.WriteString("}")
	rec := mpArray32(n, []byte{0x82, 0xa4, 'n', 'a', 'm', 'e', 0xa3, 'a', 'b', 'c', 0xa1, 'n', 0xcd, 0x12, 0x34})
	cases := []struct {
		name, format string
		frame        []byte
	}{
		{"mp [[]]*N", "msgpack", mpArray32(n, []byte{0x90})},
		{"mp [{}]*N", "msgpack", mpArray32(n, []byte{0x80})},
		{"mp [nil]*N", "msgpack", mpArray32(n, []byte{0xc0})},
		{"mp [\"\"]*N", "msgpack", mpArray32(n, []byte{0xa0})},
		{"mp [1000]*N", "msgpack", mpArray32(n, []byte{0xcd, 0x03, 0xe8})},
		{"mp [1.5f32]*N", "msgpack", mpArray32(n, []byte{0xca, 0x3f, 0xc0, 0, 0})},
		{"mp [fixext1]*N", "msgpack", mpArray32(n, []byte{0xd4, 0x01, 0x00})},
		{"mp [bin0]*N", "msgpack", mpArray32(n, []byte{0xc4, 0x00})},
		{"mp [[[]]]*N", "msgpack", mpArray32(n, []byte{0x91, 0x90})},
		{"mp {k:nil}*N", "msgpack", mk},
		{"mp records", "msgpack", rec},
		{"json [[]]*N", "json", []byte("[" + strings.Repeat("[],", n) + "[]]")},
		{"json [{}]*N", "json", []byte("[" + strings.Repeat("{},", n) + "{}]")},
		{"json [0]*N", "json", []byte("[" + strings.Repeat("1000,", n) + "0]")},
		{"json [\"\"]*N", "json", []byte("[" + strings.Repeat(`"",`, n) + `""]`)},
		{"json {k:0}*N", "json", []byte(jk.String())},
		{"json [[[]]]*N", "json", []byte("[" + strings.Repeat("[[]],", n) + "[]]")},
	}
	for _, c := range cases {
		var est int64
		if c.format == "msgpack" {
			est, _ = msgpackCost(c.frame, 1<<62)
		} else {
			est, _ = jsonCost(c.frame, 1<<62)
		}
		var err error
		real := allocOf(func() {
			if c.format == "msgpack" {
				_, err = mpw.Decoder{AllowBin: true}.Decode(c.frame)
			} else {
				var v any
				err = json.Unmarshal(c.frame, &v)
			}
		})
		ratio := float64(real) / float64(est)
		t.Logf("%-16s frame %8d B est %10d real %10d ratio %.2f err %v", c.name, len(c.frame), est, real, ratio, err)
		if ratio > 2 {
			t.Errorf("%s: decoding allocates %.1fx the estimate: a frame estimated at the 256 MiB budget costs ~%d MiB", c.name, ratio, int64(ratio*256))
		}
	}
}
