package js

import (
	"reflect"
	"testing"

	"github.com/aios-host/aios-host/guest/go/shorthand"
)

// TestProbeShorthandSameAsGo: seed 000 §9.1 — the same parameters
// registered from any runtime are indistinguishable. The seed's Rust
// example declares object_id, then language; the Go SDK's json_schema!
// (shorthand.Expand) lists required names sorted, and the JS SDK must give
// the very same schema, not the declaration order.
func TestProbeShorthandSameAsGo(t *testing.T) {
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
