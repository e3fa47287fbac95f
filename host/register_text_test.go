package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// The texts of a registration (a provider's name and description, a
// tool's description, tags, examples and deprecation note) had no UTF-8
// check, while values and schemas do: a MessagePack guest's bytes or a Go
// string with an invalid byte registered, and tools/list, MCP and the
// registry API served U+FFFD in its place. Such a registration is refused,
// naming the provider, the tool, the field and the byte.
func TestRegistrationTextUTF8(t *testing.T) {
	te := newTestHost(t, nil)
	noop := func(context.Context, any, abi.Env) (any, error) { return nil, nil }
	for _, c := range []struct {
		name string
		info abi.ProviderInfo
		def  abi.ToolDef
		want string
	}{
		{"provider name", abi.ProviderInfo{ID: "org.t.a", Name: "N\xff"}, abi.ToolDef{Name: "a1"},
			"provider org.t.a (from test): name is not valid UTF-8 (byte 0xff at offset 1"},
		{"provider description", abi.ProviderInfo{ID: "org.t.b", Description: "ok \xc3"}, abi.ToolDef{Name: "b1"},
			"provider org.t.b (from test): description is not valid UTF-8 (byte 0xc3 at offset 3"},
		{"tool description", abi.ProviderInfo{ID: "org.t.c"}, abi.ToolDef{Name: "c1", Description: "d\xfe"},
			"provider org.t.c, tool c1: description is not valid UTF-8 (byte 0xfe at offset 1"},
		{"tag", abi.ProviderInfo{ID: "org.t.d"}, abi.ToolDef{Name: "d1", Tags: []string{"x", "\x80"}},
			"provider org.t.d, tool d1: tags[1] is not valid UTF-8"},
		{"example", abi.ProviderInfo{ID: "org.t.e"}, abi.ToolDef{Name: "e1", Examples: []string{"\xed\xa0\x80"}},
			"provider org.t.e, tool e1: examples[0] is not valid UTF-8"},
		{"deprecation", abi.ProviderInfo{ID: "org.t.f"}, abi.ToolDef{Name: "f1", Deprecation: &abi.Deprecation{Message: "use g\xff"}},
			"provider org.t.f, tool f1: deprecation.message is not valid UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := native.New(c.info)
			p.MustRegister(c.def, noop)
			err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("AddProvider: %v, want an error containing %q", err, c.want)
			}
			if te.h.Registry().Provider(c.info.ID) != nil {
				t.Fatalf("%s registered", c.info.ID)
			}
		})
	}
	// Valid text of every script registers.
	p := native.New(abi.ProviderInfo{ID: "org.t.ok", Name: "Outils — 工具 🛠"})
	p.MustRegister(abi.ToolDef{Name: "ok1", Description: "résumé ✓", Tags: []string{"日本語"}}, noop)
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
}
