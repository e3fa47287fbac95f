package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestJSONParseDeepNestingRefused: goja's JSON.parse descends one Go call
// per level of nesting, and a goroutine's stack overflowing is a fatal
// error of the whole process: JSON.parse of three million '[' (6 MB of
// text, or a caller's 4 MiB params string handed to a tool that parses
// it) ended the host ("goroutine stack exceeds 1000000000-byte limit")
// for an in-process provider, and the worker for an isolated one. Text
// nested deeper than the sandbox parses is now a RangeError naming the
// depth, before goja parses it; text within it parses as before.
func TestJSONParseDeepNestingRefused(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "deepjson.ts", `
aios.provider({ id: 'org.test.deepjson' });
aios.registerTool({ name: 'parse', parameters: { type: 'object' } }, (p: any) => JSON.parse(p.text) === null ? 0 : 1);
aios.registerTool({ name: 'ok', parameters: { type: 'object' } }, () => [
  JSON.parse('[[1, {"a": "[[[[[{{{{"}]]'), JSON.parse(' {"b": [true, null, 2.5]} '), JSON.parse('"x"'),
  JSON.parse('[' + '['.repeat(500) + ']'.repeat(500) + ']').length,
]);`)
	env := newFakeEnv()
	for _, text := range []string{strings.Repeat("[", 3_000_000), strings.Repeat(`{"a":`, 600_000) + "1" + strings.Repeat("}", 600_000)} {
		_, err := call(t, p, env, "parse", map[string]any{"text": text}, time.Minute)
		te := wantCode(t, err, abi.ProviderError)
		if !strings.Contains(te.Message, "RangeError") || !strings.Contains(te.Message, "JSON.parse") || !strings.Contains(te.Message, "10000 levels") {
			t.Fatalf("JSON.parse of text nested %d deep: %q; want a RangeError naming the depth the sandbox parses", len(text), te.Message)
		}
	}
	v, err := call(t, p, env, "ok", map[string]any{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, v), `[[[1,{"a":"[[[[[{{{{"}]],{"b":[true,null,2.5]},"x",1]`; got != want {
		t.Fatalf("JSON.parse within the bound: got %s, want %s", got, want)
	}
}
