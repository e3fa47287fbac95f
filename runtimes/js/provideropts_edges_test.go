package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestProviderOptionErrorsNameLine: the provider's options (aios.provider
// or @Agent) were checked by the host after the top-level code ran, and
// their errors named the file alone: an invalid id or capability said
// nothing of the line, and a version that is not SemVer ('v1') was
// refused as "tool x: version "v1" is not a strict SemVer version", the
// version of a tool that declared none (tools take the provider's). Each
// names the line describing the provider now, and the version is called
// the provider's (the SDK's check, TestVersionCheckedWhereDeclared).
func TestProviderOptionErrorsNameLine(t *testing.T) {
	rt := newRuntime(t, Options{})
	for _, c := range []struct{ file, src, want string }{
		{"id.js", "aios.provider({ id: 'Bad Id!' });\naios.registerTool({ name: 'x' }, () => 1);\n", `invalid provider id "Bad Id!"`},
		{"ver.js", "aios.provider({ id: 'org.example.ver', version: 'v1' });\naios.registerTool({ name: 'x' }, () => 1);\n", `aios.provider(...): version "v1" is not a strict SemVer version`},
		{"caps.js", "aios.provider({ id: 'org.example.caps', capabilities: ['ReadSpace()'] });\naios.registerTool({ name: 'x' }, () => 1);\n", `ReadSpace needs an argument`},
	} {
		path := writeSource(t, c.file, c.src)
		_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
		if err == nil {
			t.Fatalf("%s loaded, want an error", c.file)
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || !strings.Contains(msg, "(at "+c.file+":1:") {
			t.Errorf("%s: %q, want %s at %s:1", c.file, msg, c.want, c.file)
		}
	}
	// A valid version is still taken by the tools without one.
	p := loadSource(t, rt, "ok.ts", "import { Agent, tool } from 'aios-sdk';\n@Agent({ id: 'org.example.ok', version: '2.1.0' })\nclass C { @tool() t() { return 1; } }\n")
	if v := p.Describe().Tools[0].Version; v != "2.1.0" {
		t.Fatalf("tool version %q, want the provider's 2.1.0", v)
	}
}

// TestToolVersionCheckedWhereDeclared: a tool's own version that is not
// strict SemVer (version: '1.0') was refused by the registry naming the
// file alone ("provider local.t, tool t: version "1.0" is not a strict
// SemVer version"), where the Python SDK names the line; the line of the
// declaration is named now.
func TestToolVersionCheckedWhereDeclared(t *testing.T) {
	rt := newRuntime(t, Options{})
	path := writeSource(t, "tv.js", "\naios.registerTool({ name: 't', version: '1.0' }, () => 1);\n")
	_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
	if err == nil {
		t.Fatal("loaded, want the version refused")
	}
	if msg := err.Error(); !strings.Contains(msg, `t: version "1.0" is not a strict SemVer version`) || !strings.Contains(msg, "(at tv.js:2:") {
		t.Fatalf("%q, want the version refused at tv.js:2", msg)
	}
}
