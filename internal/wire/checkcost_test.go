package wire

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	mpw "github.com/aios-host/aios-host/guest/go/wire"
)

func msgpackOf(t testing.TB, v any) []byte {
	t.Helper()
	b, err := mpw.AppendValue(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Frames whose values are many and small (a tool returning [{}]*N or
// [None]*N) are refused before decoding; ordinary frames of the same size
// are not (found by a probe: an 8 MiB result cost the host 495 MiB).
func TestCheckCost(t *testing.T) {
	const budget = 64 << 20
	empties := make([]any, 2_000_000)
	for i := range empties {
		empties[i] = map[string]any{}
	}
	nils := make([]any, 8_000_000)
	text := strings.Repeat("x", 40<<20)
	cases := []struct {
		name    string
		msgpack []byte
		json    []byte
		refuse  bool
	}{
		{"empty maps", msgpackOf(t, map[string]any{"result": empties}), []byte(`{"result":[` + strings.Repeat("{},", 2_000_000) + `{}]}`), true},
		{"nils", msgpackOf(t, nils), []byte("[" + strings.Repeat("null,", 8_000_000) + "null]"), true},
		{"one long string", msgpackOf(t, map[string]any{"value": text}), []byte(`{"value":"` + text + `"}`), false},
		{"records", msgpackOf(t, []any{map[string]any{"name": "a", "n": int64(1)}, map[string]any{"name": "b"}}), []byte(`[{"name":"a","n":1},{"name":"b"}]`), false},
	}
	for _, c := range cases {
		for format, frame := range map[string][]byte{"msgpack": c.msgpack, "json": c.json} {
			err := CheckCost(frame, format, budget)
			var ce *CostError
			if got := errors.As(err, &ce); got != c.refuse {
				t.Errorf("%s/%s (%d bytes): %v, want refused=%v", c.name, format, len(frame), err, c.refuse)
			}
		}
	}
	// Malformed frames are the decoder's business.
	for _, bad := range [][]byte{{0xdf, 0xff, 0xff, 0xff, 0xff}, {0xc1}, {0x92, 0x01}, []byte(`{"a":`)} {
		if err := CheckCost(bad, "msgpack", budget); err != nil && bytes.HasPrefix(bad, []byte{0xdf}) {
			t.Errorf("malformed %x: %v", bad, err)
		}
	}
}

func FuzzCheckCost(f *testing.F) {
	f.Add([]byte{0x81, 0xa1, 'a', 0x90})
	f.Add([]byte(`{"a":[1,2,{"b":"c\"d"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = CheckCost(b, "msgpack", 1<<20)
		_ = CheckCost(b, "json", 1<<20)
		// CheckCost skips frames too small to pass the budget: no byte may
		// add more than maxCostPerByte to an estimate.
		bound := int64(len(b)) * maxCostPerByte
		if c, ok := msgpackCost(b, math.MaxInt64); ok && c > bound {
			t.Fatalf("msgpack estimate %d for %d bytes passes %d a byte", c, len(b), maxCostPerByte)
		}
		if c, _ := jsonCost(b, math.MaxInt64); c > bound {
			t.Fatalf("json estimate %d for %d bytes passes %d a byte", c, len(b), maxCostPerByte)
		}
		// CheckJSONCost's skip uses max(maxCostPerByte, perObject) a byte.
		const perObject = 384
		if c, _ := jsonCostObjects(b, math.MaxInt64, perObject); c > int64(len(b))*perObject {
			t.Fatalf("json estimate %d for %d bytes with objects at %d passes %d a byte", c, len(b), perObject, perObject)
		}
	})
}

// TestCheckJSONCost: objects charged as typed structs refuse what the
// generic estimate passes, and nothing else changes.
func TestCheckJSONCost(t *testing.T) {
	frame := []byte("[" + strings.Repeat("{},", 99_999) + "{}]") // 300 KB
	if err := CheckCost(frame, "json", 16<<20); err != nil {
		t.Fatalf("generic estimate: %v, want under 16 MiB", err)
	}
	var ce *CostError
	if err := CheckJSONCost(frame, 16<<20, 384); !errors.As(err, &ce) || ce.Budget != 16<<20 {
		t.Fatalf("100000 objects at 384 bytes each under 16 MiB: %v, want a *CostError", err)
	}
	text := []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("x", 3<<20) + `"}]}`)
	if err := CheckJSONCost(text, 16<<20, 384); err != nil {
		t.Fatalf("a 3 MiB text in one object: %v", err)
	}
}
