package python_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/shorthand"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/js"
)

// TestShorthandSameAsGo: seed 000 §9.1 — "a tool registered from
// Python with parameters {...} is indistinguishable from the same schema
// registered from Rust or TypeScript". The Go SDK's json_schema!
// (shorthand.Expand) lists required names sorted; the Python SDK listed
// them in declaration order, so the seed's §9.3 parameters (object_id,
// then language) gave another "required" from Python than from Go.
func TestShorthandSameAsGo(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	p := loadTool(t, h, "analyzer.py", `
from aios_sdk import tool

@tool(name="analyze-complexity", parameters={
    "object_id": {"type": "string", "description": "ObjectId of source file"},
    "language": {"type": "string", "enum": ["rust", "python", "typescript"]},
    "zeta": {"type": "string", "optional": True},
    "alpha": {"type": "integer", "default": 1},
    "beta": {"type": "string"},
    "gamma": {"type": "string", "optional": 1},
})
def analyze(params):
    return {}

@tool(name="explicit", parameters={"b": {"type": "string"}, "a": {"type": "string"}}, required=["b", "a"])
def explicit(params):
    return {}
`)
	want, err := shorthand.Expand(map[string]any{
		"object_id": map[string]any{"type": "string", "description": "ObjectId of source file"},
		"language":  map[string]any{"type": "string", "enum": []any{"rust", "python", "typescript"}},
		"zeta":      map[string]any{"type": "string", "optional": true},
		"alpha":     map[string]any{"type": "integer", "default": int64(1)},
		"beta":      map[string]any{"type": "string"},
		"gamma":     map[string]any{"type": "string", "optional": int64(1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, tl := range p.Describe().Tools {
		got[tl.Name] = tl.Parameters
	}
	if !reflect.DeepEqual(got["analyze-complexity"], want) {
		t.Fatalf("Python schema %#v\nGo's json_schema! gives %#v", got["analyze-complexity"], want)
	}
	// An explicit required=[...] is kept as given.
	if r := got["explicit"]["required"]; !reflect.DeepEqual(r, []any{"b", "a"}) {
		t.Fatalf("explicit required = %v, want [b a] as given", r)
	}
}

// TestSeedCrossRuntimeTSToPython: seed 000 §9.7 as drawn — a
// TypeScript agent calls call_tool('pdf-extract', {object_id: '...',
// pages: '1-5'}), the host looks the tool up (the seed's PdfTools,
// samples/plugins/pdf_tools.py, in a Python worker), checks capabilities
// and schema, and the result comes back to the TypeScript caller; the
// caller never knows the provider's runtime. Errors come back as ToolError
// codes: a call without the required object_id is InvalidParams, and a
// caller without ReadSpace(documents) is CapabilityDenied at the nested
// call (its grants ∩ the agent's).
func TestSeedCrossRuntimeTSToPython(t *testing.T) {
	rt := newRuntime(t, nil)
	jsrt := js.New(js.Options{})
	t.Cleanup(func() { _ = jsrt.Close() })
	h := newHost(t, rt, jsrt.Loaders()...)
	agent := writeTool(t, "reader.ts", `
import { Agent, tool, Capability } from 'aios-sdk';

@Agent({ name: 'Reader', capabilities: [Capability.ReadSpace('documents'), Capability.CallTool('pdf-extract')] })
class Reader {
  @tool({ name: 'read-report', parameters: { object_id: { type: 'string' }, pages: { type: 'string', default: '1-5' } } })
  async read(params: { object_id?: string; pages?: string }, ctx: any) {
    const r = await ctx.call_tool('pdf-extract', params.object_id === undefined ? { pages: '1-5' } : { object_id: params.object_id, pages: params.pages ?? '1-5' });
    return { chars: r.text.length, page_count: r.page_count, first: r.text.split('\n')[0] };
  }
}
`)
	for _, f := range []string{filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "pdf_tools.py"), agent} {
		if _, err := h.LoadFile(context.Background(), f, host.ProviderMeta{Source: f, Trust: abi.Community}); err != nil {
			t.Fatal(err)
		}
	}
	id, err := h.Spaces().Put("documents", makePDF(fixturePages))
	if err != nil {
		t.Fatal(err)
	}
	got, err := call(h, "read-report", map[string]any{"object_id": id}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := got.(map[string]any)
	if m["page_count"] != int64(3) || m["first"] != "Quarterly report" {
		t.Fatalf("read-report = %#v", m)
	}
	_, err = call(h, "read-report", map[string]any{}, 0)
	wantCode(t, err, abi.InvalidParams, "object_id")
	_, err = h.Call(context.Background(), &abi.ToolCall{Caller: "nobody", Tool: "read-report", Params: map[string]any{"object_id": id}})
	wantCode(t, err, abi.CapabilityDenied)
}
