package wire

import (
	"strings"
	"testing"
)

// (Found by a probe.) a 10 MiB list of small records ({"name":"abc","n":4660} × 700k)
// is refused on the MessagePack wire but the same result (17 MiB) passes
// on the JSON wire: whether an ordinary result is served depends on the
// negotiated format: jsonCost counts nothing for a number (or true,
// false, null) and one map entry fewer per object (separators only), so
// its estimate is ~8% under msgpackCost's for the same value.
func TestRecordsRefusedByFormat(t *testing.T) {
	n := 700_000
	mp := mpArray32(n, []byte{0x82, 0xa4, 'n', 'a', 'm', 'e', 0xa3, 'a', 'b', 'c', 0xa1, 'n', 0xcd, 0x12, 0x34})
	js := []byte("[" + strings.Repeat(`{"name":"abc","n":4660},`, n-1) + `{"name":"abc","n":4660}]`)
	errM := CheckCost(mp, "msgpack", DecodeBudget)
	errJ := CheckCost(js, "json", DecodeBudget)
	t.Logf("msgpack %d MiB: %v; json %d MiB: %v", len(mp)>>20, errM, len(js)>>20, errJ)
	if (errM == nil) != (errJ == nil) {
		t.Errorf("the same %d records: msgpack refused=%v, json refused=%v", n, errM != nil, errJ != nil)
	}
}
