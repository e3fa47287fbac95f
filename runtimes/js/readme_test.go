package js

import (
	"testing"
	"time"
)

// TestReadmeExample runs the README's JS example.
func TestReadmeExample(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "words.js", `
aios.provider({ id: 'org.example.words', capabilities: ['ReadSpace(docs)'] });
aios.registerTool({ name: 'word-count', parameters: { object_id: { type: 'string' } } },
  async (params, ctx) => {
    const text = await ctx.spaces.read(params.object_id, 'docs');
    return { words: String(text).split(/\s+/).filter(Boolean).length };
  });
`)
	env := newFakeEnv()
	obj, _ := env.SpaceWrite(t.Context(), "docs", []byte("one two  three\nfour"))
	res, err := call(t, p, env, "word-count", map[string]any{"object_id": obj.ID}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"words": int64(4)}; !equalJSON(res, want) {
		t.Errorf("result = %v, want %v", res, want)
	}
}
