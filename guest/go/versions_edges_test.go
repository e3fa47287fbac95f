package aios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
)

// TestSeveralVersionsOfATool: a guest registering a tool name at two
// versions (docs/abi.md: a name@version is unique in the module, which may
// register several versions of a name, told apart by the ToolCall's
// "version"; the host loads such a module) panicked in init, "tool
// versions registered twice", so no Go guest could serve two versions. Both
// register now, each call reaches the version it names, a version the guest
// does not serve is NotFound naming the ones it does, and the same
// name@version twice (no version being 1.0.0, the host's default) still
// panics, naming the version.
func TestSeveralVersionsOfATool(t *testing.T) {
	register()
	for _, v := range []string{"1.0.0", "2.0.0"} {
		Handle(Tool{Name: "versions", Version: v}, func(c *Call, p any) (any, error) {
			return "served " + v + " for " + c.Version, nil
		})
	}
	HandleFunc(Tool{Name: "versions-default"}, func(c *Call, in map[string]any) (string, error) { return "default", nil })
	var names []string
	for _, tl := range reg.tools {
		if strings.HasPrefix(tl.Name, "versions") {
			names = append(names, tl.Name+"@"+tl.Version)
		}
	}
	if fmt.Sprint(names) != "[versions@1.0.0 versions@2.0.0 versions-default@]" {
		t.Fatalf("registered %v", names)
	}
	call := func(tool, version string) *abi.ToolResult {
		m := map[string]any{"id": "c1", "tool": tool, "params": map[string]any{}}
		if version != "" {
			m["version"] = version
		}
		b, err := wire.AppendValue(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		var r abi.ToolResult
		if err := abi.MsgPack.Unmarshal(serve(b), &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	for _, v := range []string{"1.0.0", "2.0.0"} {
		if r := call("versions", v); r.Error != nil || r.Value != "served "+v+" for "+v {
			t.Errorf("versions@%s: %v, %v", v, r.Value, r.Error)
		}
	}
	r := call("versions", "3.0.0")
	if r.Error == nil || r.Error.Code != abi.NotFound || !strings.Contains(r.Error.Message, `versions version "3.0.0"`) ||
		!strings.Contains(r.Error.Message, "1.0.0, 2.0.0") {
		t.Errorf("versions@3.0.0: %v, %+v; want NotFound naming the versions served", r.Value, r.Error)
	}
	// One version of a name: the version the host sends (its default,
	// 1.0.0, for a tool that declares none) is not compared.
	if r := call("versions-default", "1.0.0"); r.Error != nil || r.Value != "default" {
		t.Errorf("versions-default@1.0.0: %v, %v", r.Value, r.Error)
	}
	for _, c := range []struct{ name, version, want string }{
		{"versions", "2.0.0", "aios: tool versions@2.0.0 registered twice"},
		{"versions-default", "1.0.0", "aios: tool versions-default@1.0.0 registered twice (no version is 1.0.0, the host's default)"},
	} {
		func() {
			defer func() {
				if r := recover(); fmt.Sprint(r) != c.want {
					t.Errorf("%s@%s again: panic %v; want %q", c.name, c.version, r, c.want)
				}
			}()
			Handle(Tool{Name: c.name, Version: c.version}, func(c *Call, p any) (any, error) { return nil, nil })
		}()
	}
}
