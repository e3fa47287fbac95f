package aios

import (
	"math"
	"strings"
	"testing"
)

// TestErrorDataLeftOutSaysSo: an *Error whose Data encoding/json
// refuses too (NaN, a channel) reached the caller without it and without a
// word; the JS and Python SDKs add "(its data was left out: why)" to the
// message, and so does the Go guest SDK now.
func TestErrorDataLeftOutSaysSo(t *testing.T) {
	probeTool(t, "probe-errnan", func() {
		Handle(Tool{Name: "probe-errnan"}, func(c *Call, p any) (any, error) {
			return nil, &Error{Code: Conflict, Message: "taken", Data: map[string]any{"f": math.NaN()}}
		})
	})
	probeTool(t, "probe-errchan", func() {
		Handle(Tool{Name: "probe-errchan"}, func(c *Call, p any) (any, error) {
			return nil, &Error{Code: Conflict, Message: "taken", Data: struct{ C chan int }{}}
		})
	})
	for _, tool := range []string{"probe-errnan", "probe-errchan"} {
		_, terr := serveResult(t, tool, nil)
		// (A generic value's NaN is named by its path since
		// TestErrorDataLeftOutNamesPath.)
		if terr == nil || terr.Code != Conflict || terr.Data != nil || !strings.HasPrefix(terr.Message, "taken (its data was left out: json: unsupported ") && !strings.HasPrefix(terr.Message, "taken (its data was left out: wire: $.f: NaN is not a JSON number") {
			t.Errorf("%s: %+v; want Conflict, no data, and the message saying it was left out and why", tool, terr)
		}
	}
}
