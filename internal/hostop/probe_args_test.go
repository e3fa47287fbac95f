package hostop

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestProbeArgsOfWrongType: an argument of the wrong type (bytes from a
// Python tool's msgpack, a number) was read as "" without a word: a bytes
// prompt reached the backend empty, a bytes space name made space_read
// search every readable space instead of the one named, an int id was
// refused as the ObjectId "", and a float max_tokens was dropped.
func TestProbeArgsOfWrongType(t *testing.T) {
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
