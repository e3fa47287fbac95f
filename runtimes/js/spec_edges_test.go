package js

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/guest/go/shorthand"
)

// TestSeedCallToolSpelling: seed 000 §9.7 shows a TypeScript agent
// calling a Python tool as call_tool('pdf-extract', {object_id: '...',
// pages: '1-5'}). The JS SDK's ctx had callTool only, so the seed's
// spelling failed with "ctx.call_tool is not a function" (the SDK already
// takes the Python spellings of tool options: capability_required,
// max_tokens). ctx.call_tool is the same function as ctx.callTool.
func TestSeedCallToolSpelling(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "agent.ts", `
import { Agent, tool } from 'aios-sdk';

@Agent({ name: 'Reader' })
class Reader {
  @tool({ name: 'read-pdf', parameters: { object_id: { type: 'string' } } })
  async read(params: { object_id: string }, ctx: any) {
    const r = await ctx.call_tool('pdf-extract', { object_id: params.object_id, pages: '1-5' });
    return { text: r.text, same: ctx.call_tool === ctx.callTool };
  }
}
`)
	env := newFakeEnv()
	var got any
	env.tools["pdf-extract"] = func(_ context.Context, params any) (any, error) {
		got = params
		return map[string]any{"text": "hello", "page_count": int64(5)}, nil
	}
	res, err := call(t, p, env, "read-pdf", map[string]any{"object_id": "sha256:x"}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"text": "hello", "same": true}; !reflect.DeepEqual(res, want) {
		t.Fatalf("result %#v, want %#v", res, want)
	}
	if want := map[string]any{"object_id": "sha256:x", "pages": "1-5"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pdf-extract got %#v, want %#v", got, want)
	}
}

// TestShorthandSameAsGo: seed 000 §9.1 — the same parameters
// registered from any runtime are indistinguishable. The seed's Rust
// example declares object_id, then language; the Go SDK's json_schema!
// (shorthand.Expand) lists required names sorted, and the JS SDK must give
// the very same schema, not the declaration order.
func TestShorthandSameAsGo(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "analyzer.js", `
aios.registerTool({
  name: 'analyze-complexity',
  parameters: {
    object_id: { type: 'string', description: 'ObjectId of source file' },
    language: { type: 'string', enum: ['rust', 'python', 'typescript'] },
    zeta: { type: 'string', optional: true },
    alpha: { type: 'integer', default: 1 },
    beta: { type: 'string' },
  },
}, () => ({}));`)
	want, err := shorthand.Expand(map[string]any{
		"object_id": map[string]any{"type": "string", "description": "ObjectId of source file"},
		"language":  map[string]any{"type": "string", "enum": []any{"rust", "python", "typescript"}},
		"zeta":      map[string]any{"type": "string", "optional": true},
		"alpha":     map[string]any{"type": "integer", "default": int64(1)},
		"beta":      map[string]any{"type": "string"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := p.Describe().Tools[0].Parameters
	if !reflect.DeepEqual(got["required"], want["required"]) {
		t.Fatalf("JS required %v, Go's json_schema! gives %v", got["required"], want["required"])
	}
}
