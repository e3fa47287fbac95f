package python_test

import (
	"testing"
)

// A bare @tool over a classmethod (@tool above @classmethod, as over
// @staticmethod, which works) was taken as @tool(name=<classmethod>),
// since a classmethod object is not callable: the method became the
// decorator's inner function and the tool was silently missing from the
// provider (a call: NotFound "did you mean …?"). It is the tool.
func TestBareToolOverClassmethod(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	p := loadTool(t, h, "cm.py", `
from aios_sdk import Agent, tool

@Agent(id="org.probe.cm")
class C:
    calls = 0

    @tool
    @classmethod
    def count(cls, params):
        cls.calls += 1
        return {"calls": cls.calls, "cls": cls.__name__}

    @tool
    @staticmethod
    def ok(params):
        return {"ok": True}
`)
	names := map[string]bool{}
	for _, tl := range p.Describe().Tools {
		names[tl.Name] = true
	}
	if !names["count"] || !names["ok"] {
		t.Fatalf("tools %v; want count and ok", names)
	}
	got, err := call(h, "count", map[string]any{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := got.(map[string]any); m["cls"] != "C" || m["calls"] == nil {
		t.Fatalf("count returned %#v", got)
	}
	stillServes(t, h, "a classmethod tool")
}
