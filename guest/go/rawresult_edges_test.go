package aios

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/guest/go/wire"
)

// TestRawHandlerWithoutValueIsInvalidResult: a RawHandler that returned
// nil (nil, nil: "no result"), out as it was given, or a value of its own
// not appended to out had the guest answer an empty buffer, a ToolResult
// cut after "value", or bytes that are no ToolResult: the host said
// ProviderCrashed "aios_call result is empty (ptr 0, len 0)" (and dropped
// the instance) or "malformed MessagePack ToolResult: unexpected end of
// data", words of the ABI that did not point at the handler. Each is now
// InvalidResult naming the tool and what the handler must return.
func TestRawHandlerWithoutValueIsInvalidResult(t *testing.T) {
	for name, h := range map[string]RawHandler{
		"probe-raw-nil":   func(c *Call, params, out []byte) ([]byte, error) { return nil, nil },
		"probe-raw-out":   func(c *Call, params, out []byte) ([]byte, error) { return out, nil },
		"probe-raw-fresh": func(c *Call, params, out []byte) ([]byte, error) { return wire.AppendInt(nil, 1), nil },
	} {
		probeTool(t, name, func() { HandleRaw(Tool{Name: name}, h) })
		_, terr := serveResult(t, name, nil)
		if terr == nil || terr.Code != InvalidResult || !strings.Contains(terr.Message, name) || !strings.Contains(terr.Message, "append") {
			t.Errorf("%s: %+v, want InvalidResult naming the tool and saying to append the value to out", name, terr)
		}
	}
	// A raw handler that appends its value still answers it.
	probeTool(t, "probe-raw-ok", func() {
		HandleRaw(Tool{Name: "probe-raw-ok"}, func(c *Call, params, out []byte) ([]byte, error) { return wire.AppendInt(out, 7), nil })
	})
	if v, terr := serveResult(t, "probe-raw-ok", nil); terr != nil || v != int64(7) {
		t.Fatalf("%#v %+v, want 7", v, terr)
	}
}
