package aios

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestInterfaceParamsField: HandleFunc refuses at registration a
// params type encoding/json cannot decode (a channel, a function), but
// took one with a field of a non-empty interface type (an io.Reader, an
// error, a fmt.Stringer), which encoding/json cannot decode into either:
// every call that sent the field failed as the caller's InvalidParams
// ("cannot unmarshal string into Go struct field .Src of type io.Reader"),
// though the params were valid. It panics at registration now, naming the
// tool, the field and the type; `any` and a non-empty interface in the
// result type (which encoding/json writes by its value) still register.
func TestInterfaceParamsField(t *testing.T) {
	for _, c := range []struct {
		name string
		reg  func(name string)
		want []string
	}{
		{"iface-field", func(n string) {
			HandleFunc(Tool{Name: n}, func(c *Call, in struct{ Src io.Reader }) (any, error) { return nil, nil })
		}, []string{"params", "Src", "io.Reader"}},
		{"iface-map", func(n string) {
			HandleFunc(Tool{Name: n}, func(c *Call, in map[string]fmt.Stringer) (any, error) { return nil, nil })
		}, []string{"params", "fmt.Stringer"}},
		{"iface-error", func(n string) {
			HandleFunc(Tool{Name: n}, func(c *Call, in struct{ Cause []error }) (any, error) { return nil, nil })
		}, []string{"params", "Cause", "error"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "probe-" + c.name
			got := registerPanic(t, name, func() { c.reg(name) })
			if !strings.Contains(got, name) {
				t.Fatalf("registration panicked with %q, want a panic naming %s and %q", got, name, c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Fatalf("registration panicked with %q, want it to name %q", got, w)
				}
			}
		})
	}
	probeTool(t, "probe-iface-ok", func() {
		HandleFunc(Tool{Name: "probe-iface-ok"}, func(c *Call, in struct{ V any }) (struct{ S fmt.Stringer }, error) {
			return struct{ S fmt.Stringer }{}, nil
		})
	})
	if _, terr := serveResult(t, "probe-iface-ok", map[string]any{"V": "x"}); terr != nil {
		t.Fatal(terr)
	}
}
