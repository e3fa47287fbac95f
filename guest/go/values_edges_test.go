package aios

import (
	"math"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/guest/go/wire"
)

// TestResultNotJSON: a generic handler's result that is not a JSON
// value is the call's InvalidResult naming the path, as in the JS and
// Python SDKs. A []byte was written as MessagePack bin, which the host
// refuses in results: the caller got "the guest returned a malformed
// MessagePack ToolResult" (a protocol error, as if the SDK were broken),
// and NaN was an Internal error.
func TestResultNotJSON(t *testing.T) {
	register()
	Handle(Tool{Name: "probe-bytes"}, func(c *Call, p any) (any, error) {
		return map[string]any{"ok": true, "img": []any{int64(1), []byte{0x89, 'P'}}}, nil
	})
	Handle(Tool{Name: "probe-nan"}, func(c *Call, p any) (any, error) {
		return map[string]any{"x": math.NaN()}, nil
	})
	t.Cleanup(func() { // the registry is global: TestRegisterMessage lists it
		delete(reg.handlers, "probe-bytes")
		delete(reg.handlers, "probe-nan")
		reg.tools = reg.tools[:len(reg.tools)-2]
	})
	for _, c := range []struct{ tool, want string }{
		{"probe-bytes", "$.img[1]: "},
		{"probe-nan", "$.x: "},
	} {
		out := serve(callMsg(t, c.tool, nil))
		// The host reads results with wire's strict decoder (no bin).
		v, err := wire.DecodeValue(out)
		if err != nil {
			t.Fatalf("%s: the host cannot read the result: %v", c.tool, err)
		}
		_, terr, err := wire.ParseResult(v)
		if err != nil || terr == nil || terr.Code != "InvalidResult" || !strings.Contains(terr.Message, c.want) {
			t.Fatalf("%s: %#v %v; want InvalidResult naming %q", c.tool, terr, err, c.want)
		}
	}
}
