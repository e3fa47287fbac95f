package aios

import (
	"strings"
	"testing"
)

// panicJSON is a Go value whose own MarshalJSON panics.
type panicJSON struct{}

func (panicJSON) MarshalJSON() ([]byte, error) { panic("index out of range [3] with length 3") }

// TestErrorDataMarshalPanicKeepsCode: a handler's *aios.Error whose Data
// holds a value with a panicking MarshalJSON reached the caller as a
// ProviderError "the handler's error (a *aios.Error): its Error method
// panicked", which blamed a method that did not panic and lost the
// error's code and message. The code and message are kept now, the data
// left out saying that encoding it panicked, as data encoding/json refuses
// is left out.
func TestErrorDataMarshalPanicKeepsCode(t *testing.T) {
	probeTool(t, "probe-errdata-panic", func() {
		Handle(Tool{Name: "probe-errdata-panic"}, func(c *Call, p any) (any, error) {
			return nil, &Error{Code: NotFound, Message: "no such row", Data: map[string]any{"row": panicJSON{}}}
		})
	})
	_, terr := serveResult(t, "probe-errdata-panic", nil)
	if terr == nil || terr.Code != NotFound || !strings.HasPrefix(terr.Message, "no such row") ||
		!strings.Contains(terr.Message, "left out") || !strings.Contains(terr.Message, "index out of range") || terr.Data != nil {
		t.Fatalf("%+v, want the NotFound \"no such row\", its data left out saying encoding it panicked", terr)
	}
}
