package hostop

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestArgsOfWrongType: an argument of the wrong type was read as ""
// without a word: a Python tool's ctx.ai.complete(123) reached the backend
// with an empty prompt, ctx.spaces.read(oid, 5) searched every readable
// space instead of failing, ctx.spaces.read(123) was refused as the
// ObjectId "", and a float max_tokens (a JSON codec's 12.0) was dropped.
// (Bytes cases: the Python SDK refuses bytes in host-call arguments
// before they are sent; a runtime that sent them is refused the same.)
func TestArgsOfWrongType(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		op   string
		args map[string]any
		want string
	}{
		{"ai_complete", map[string]any{"prompt": []byte("hi")}, `"prompt"`},
		{"ai_complete", map[string]any{"prompt": "hi", "system": int64(3)}, `"system"`},
		{"ai_complete", map[string]any{"prompt": "hi", "model": []byte("m")}, `"model"`},
		{"ai_complete", map[string]any{"prompt": "hi", "max_tokens": "100"}, `"max_tokens"`},
		{"ai_complete", map[string]any{"prompt": "hi", "max_tokens": 2.5}, `"max_tokens"`},
		{"ai_complete", map[string]any{"prompt": "hi", "temperature": "hot"}, `"temperature"`},
		{"space_read", map[string]any{"id": "sha256:y", "space": []byte("docs")}, `"space"`},
		{"space_read", map[string]any{"id": int64(123)}, `"id"`},
		{"space_write", map[string]any{"space": []byte("docs"), "data": ""}, `"space"`},
		{"call_tool", map[string]any{"tool": "t", "version": int64(1)}, `"version"`},
	} {
		e := &env{}
		_, err := Do(ctx, e, &abi.HostCall{CallID: "c", Op: c.op, Args: c.args})
		if abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.op) {
			t.Errorf("%s %v: %v (env got %+v); want InvalidParams naming %s", c.op, c.args, err, e.req, c.want)
		}
	}
	// Integral floats (a JSON codec's numbers) are integers.
	e := &env{}
	if _, err := Do(ctx, e, &abi.HostCall{CallID: "c", Op: "ai_complete", Args: map[string]any{"prompt": "p", "max_tokens": float64(12), "temperature": 0.5}}); err != nil || e.req.MaxTokens != 12 || *e.req.Temperature != 0.5 {
		t.Fatalf("max_tokens 12.0: %+v %v", e.req, err)
	}
}
