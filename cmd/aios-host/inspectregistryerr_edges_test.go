package main

import (
	"strings"
	"testing"
)

// TestInspectRegistryErrorNamesFile: every error of `inspect` began with
// the file it read ("g.wasm: tools[0]: invalid tool name …") but those of
// the registry's check, a latency class, a version or a schema the host
// would refuse, which named only the provider and the tool ("provider
// org.x, tool a: unknown latency class …"), so a script inspecting several
// files could not tell which one failed. They name the file first too.
func TestInspectRegistryErrorNamesFile(t *testing.T) {
	mod := registerOnlyModule(t, "e", `{"format":1,"provider":{"id":"org.probe.inspecterr"},"tools":[{"name":"a","latency_class":"quick"}]}`)
	e := newEnv(t)
	code, _, errs := e.run("", "inspect", mod)
	if want := mod + `: provider org.probe.inspecterr, tool a: unknown latency class "quick"`; code != exitFail || !strings.Contains(errs, want) {
		t.Errorf("inspect: exit %d, stderr:\n%s\nwant %q", code, errs, want)
	}
}
