package wasm

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestJSONRegisterTextNotUnicode: a JSON ToolRegister whose text is not
// Unicode — an invalid UTF-8 byte in a tool's description, an escaped lone
// surrogate in a tool name's neighbour — loaded, its bytes read as U+FFFD
// by encoding/json, so `aios-host inspect` and tools/list showed "��"
// where docs/abi.md says a registration with an invalid byte is refused
// whatever the runtime (a MessagePack guest's is, by the registry's text
// check). It is refused at load naming aios_register, the byte and its
// offset, on both engines.
func TestJSONRegisterTextNotUnicode(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			for _, c := range []struct{ reg, want string }{
				{"{\"format\":1,\"provider\":{\"id\":\"org.probe.text\"},\"tools\":[{\"name\":\"t\",\"description\":\"r\xe9sum\xe9\"}]}",
					"not valid UTF-8 (byte 0xe9 at offset 84)"},
				{`{"format":1,"provider":{"id":"org.probe.text"},"tools":[{"name":"t","tags":["\ud800","\udc00"]}]}`,
					`\ud800 at offset 77`},
			} {
				g := newEdgeGuest(c.reg)
				g.call = "(i64.const 0)"
				p, err := e.load(t, Config{PoolSize: 1}, abi.Source{Path: buildWAT(t, g.wat())})
				if err == nil {
					p.Close()
				}
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "aios_register") {
					t.Errorf("%q: load error %v; want one naming aios_register and %q", c.reg, err, c.want)
				}
			}
			// Text that is Unicode, escaped or not, still loads.
			g := newEdgeGuest(`{"format":1,"provider":{"id":"org.probe.text"},"tools":[{"name":"t","description":"résumé \ud83d\ude00 \u00e9"}]}`)
			g.call = "(i64.const 0)"
			p, err := e.load(t, Config{PoolSize: 1}, abi.Source{Path: buildWAT(t, g.wat())})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if d := p.Describe().Tools[0].Description; d != "résumé 😀 é" {
				t.Errorf("description %q", d)
			}
		})
	}
}
