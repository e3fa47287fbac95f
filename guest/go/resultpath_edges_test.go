package aios

import (
	"math"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/guest/go/wire"
)

// TestNotJSONNamedByPath: a value that is not JSON in a generic
// handler's result, in a call_tool's params or in an error's data is
// named by its path as the JS and Python runtimes name it ($.a[1].b). The
// Go SDK wrote the path as the keys and indexes before the error ("a:
// [1]: b: wire: +Inf is not a JSON number"), a notation of its own, and
// call_tool's params said encoding/json's "json: unsupported value: NaN",
// naming no path.
func TestNotJSONNamedByPath(t *testing.T) {
	register()
	Handle(Tool{Name: "probe-path-nan"}, func(c *Call, p any) (any, error) {
		return map[string]any{"a": []any{int64(1), map[string]any{"b": math.Inf(1)}}}, nil
	})
	t.Cleanup(func() {
		delete(reg.handlers, "probe-path-nan")
		reg.tools = reg.tools[:len(reg.tools)-1]
	})
	out := serve(callMsg(t, "probe-path-nan", nil))
	v, err := wire.DecodeValue(out)
	if err != nil {
		t.Fatal(err)
	}
	_, terr, err := wire.ParseResult(v)
	want := "probe-path-nan: the result is not a JSON value: wire: $.a[1].b: +Inf is not a JSON number"
	if err != nil || terr == nil || terr.Code != "InvalidResult" || terr.Message != want {
		t.Errorf("got %#v %v\nwant InvalidResult %q", terr, err, want)
	}

	_, err = callToolRequest("peer", "", map[string]any{"value": []any{"x", math.NaN()}})
	if err == nil || !strings.Contains(err.Error(), "call_tool peer: the params are not a JSON value: wire: $.params.value[1]: NaN is not a JSON number") {
		t.Errorf("call_tool: %v", err)
	}
}

// TestErrorDataLeftOutNamesPath: an *Error's generic Data holding a NaN
// is left out with a note naming the value's path in the data, as the JS
// and Python runtimes name it; the note was encoding/json's "json:
// unsupported value: NaN", naming no path.
func TestErrorDataLeftOutNamesPath(t *testing.T) {
	probeTool(t, "probe-errpath", func() {
		Handle(Tool{Name: "probe-errpath"}, func(c *Call, p any) (any, error) {
			return nil, &Error{Code: Conflict, Message: "taken", Data: map[string]any{"a": []any{int64(1), map[string]any{"b": math.NaN()}}}}
		})
	})
	_, terr := serveResult(t, "probe-errpath", nil)
	if want := "taken (its data was left out: wire: $.a[1].b: NaN is not a JSON number)"; terr == nil || terr.Code != Conflict || terr.Data != nil || terr.Message != want {
		t.Errorf("%+v; want Conflict, no data, %q", terr, want)
	}
}
