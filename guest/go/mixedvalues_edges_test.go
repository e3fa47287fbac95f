package aios

import (
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
