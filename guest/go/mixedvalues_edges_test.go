package aios

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/guest/go/wire"
)

// TestGenericFloatsBesideGoValuesKept: c.CallTool's params and an
// *Error's Data holding a Go value (a time.Time, a struct, an int32)
// beside generic ones were converted whole by encoding/json, so a generic
// whole float from 2^53 up went as its shortest digits, the float 2^60 as
// the integer 1152921504606847000, another number, where a typed result's
// map[string]any keeps its generic values as they are (jsonValue). Both
// convert only the Go values now: the called tool and the caller get 2^60.
func TestGenericFloatsBesideGoValuesKept(t *testing.T) {
	at := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	in := map[string]any{"when": at, "score": float64(1 << 60), "n": int32(3), "list": []any{float64(1 << 62), "x"}}
	want := map[string]any{"when": "2026-12-05T10:00:00Z", "score": float64(1 << 60), "n": int64(3), "list": []any{float64(1 << 62), "x"}}

	b, err := callToolRequest("peer", "", in)
	if err != nil {
		t.Fatal(err)
	}
	req, err := wire.DecodeValue(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := req.(map[string]any)["params"]; !reflect.DeepEqual(got, want) {
		t.Errorf("call_tool params:\n got  %#v\n want %#v", got, want)
	}

	probeTool(t, "probe-mixed-data", func() {
		Handle(Tool{Name: "probe-mixed-data"}, func(c *Call, p any) (any, error) {
			return nil, &Error{Code: NotFound, Message: "m", Data: in}
		})
	})
	_, terr := serveResult(t, "probe-mixed-data", nil)
	if terr == nil || terr.Code != NotFound || terr.Message != "m" || !reflect.DeepEqual(terr.Data, want) {
		t.Errorf("error data: %#v\n want data %#v", terr, want)
	}
}

// TestTypedFloatCollectionsExact: a typed result that is a Go slice or map
// of floats ([]float64, map[int]float64, map[string]Celsius) went whole
// through encoding/json, which writes a whole float from 2^53 up as the
// integer of its shortest digits: 2^60 arrived as 1152921504606847000,
// another number, where a native tool's map[int]float64 keeps it (found by
// p176). They are walked: the floats kept, integer keys in decimal.
func TestTypedFloatCollectionsExact(t *testing.T) {
	type Celsius float64
	type result struct {
		Floats []float64
		ByID   map[int]float64
		Named  map[string]Celsius
		Tags   []string
		Empty  []float64
	}
	r := result{Floats: []float64{1 << 60, 0.5}, ByID: map[int]float64{7: 1 << 62}, Named: map[string]Celsius{"x": 1 << 55}, Tags: []string{"a"}}
	cases := []struct {
		v    any
		want any
	}{
		{r.Floats, []any{float64(1 << 60), 0.5}},
		{r.ByID, map[string]any{"7": float64(1 << 62)}},
		{r.Named, map[string]any{"x": float64(1 << 55)}},
		{&r.Floats, []any{float64(1 << 60), 0.5}},
		{r.Tags, []any{"a"}},
		{r.Empty, nil},
		{[]byte("hi"), "aGk="},
		{map[uint8]bool{3: true}, map[string]any{"3": true}},
		{[2]int32{1, -2}, []any{int64(1), int64(-2)}},
	}
	for _, c := range cases {
		got, err := toGeneric("t", c.v)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%#v: %#v %v, want %#v", c.v, got, err, c.want)
		}
	}
	if _, err := toGeneric("t", []float64{math.NaN()}); err == nil {
		t.Error("a NaN in a []float64 was taken")
	}
}
