package abi

import (
	"reflect"
	"strings"
	"testing"
)

// TestIntegerKeyedMapValuesExact: a map with integer keys (a native tool's
// map[int]float64 of scores, map[int64]any) went whole through
// encoding/json, so a whole float from 2^53 up in it became the integer
// of its shortest digits, 2^60 as 1152921504606847000, another number,
// and a string that is not UTF-8 became U+FFFD without a word, where a
// map[string]any keeps the float and refuses the string naming its path.
// Its keys are written in decimal, as encoding/json writes them, and its
// values normalized as any map's.
func TestIntegerKeyedMapValuesExact(t *testing.T) {
	v, err := Normalize(map[string]any{"scores": map[int]float64{-1: float64(1 << 60), 2: 0.5}, "u": map[uint8]any{7: uint64(1 << 63)}})
	want := map[string]any{"scores": map[string]any{"-1": float64(1 << 60), "2": 0.5}, "u": map[string]any{"7": uint64(1 << 63)}}
	if err != nil || !reflect.DeepEqual(v, want) {
		t.Errorf("got %#v %v\nwant %#v", v, err, want)
	}
	_, err = Normalize(map[string]any{"names": map[int64]string{3: "a\xffb"}})
	if err == nil || !strings.Contains(err.Error(), "$.names.3: a string that is not valid UTF-8") {
		t.Errorf("a string that is not UTF-8 in a map[int64]string: %v", err)
	}
}
