package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

// costlyParams counts the bytes of JSON every decoding of the params
// into it reads (DecodeTyped decodes the whole type at each try).
type costlyParams struct {
	Items []int `json:"items"`
}

var costlyRead int

func (p *costlyParams) UnmarshalJSON(b []byte) error {
	costlyRead += len(b)
	type plain costlyParams
	return json.Unmarshal(b, (*plain)(p))
}

// TestDecodeTypedBadElementsCostBounded: params whose many elements each
// fail the same way (5000 strings for a []int, 25 KB) had DecodeTyped look
// for the failing part by decoding the params without each element in
// turn, 4096 decodings of the whole params before it gave up: 14 s for
// 10000 elements, 2 minutes for 100000, a typed tool's caller holding a
// native tool (which no deadline stops) or a wasm guest (which then
// answered Timeout, not InvalidParams) with one call. The search is now
// bounded by the bytes it decodes, a few times the params' own size: the
// error comes at once, still saying what is wrong.
func TestDecodeTypedBadElementsCostBounded(t *testing.T) {
	items := make([]any, 5000)
	for i := range items {
		items[i] = "a"
	}
	params := map[string]any{"items": items}
	b, _ := json.Marshal(params)
	costlyRead = 0
	var dst costlyParams
	err := DecodeTyped(params, &dst)
	if err == nil || !strings.Contains(err.Error(), "cannot unmarshal string") {
		t.Fatalf("err = %v, want encoding/json's type error", err)
	}
	if limit := 32*len(b) + 1<<20; costlyRead > limit {
		t.Fatalf("finding the failing part decoded %d bytes of JSON for params of %d bytes (more than %d)", costlyRead, len(b), limit)
	}
}
