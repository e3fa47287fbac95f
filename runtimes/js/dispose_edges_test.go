package js

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestUsingDeclarationsDispose: TypeScript's `using` and `await using`
// (explicit resource management, TS 5.2; esbuild lowers them) failed
// every call with "TypeError: Object not disposable": goja has no
// Symbol.dispose or Symbol.asyncDispose, so the object's
// [Symbol.dispose]() method was stored under the key "undefined" while
// esbuild's helper looked for Symbol.for("Symbol.dispose") (found by
// p118). The prelude defines both symbols, as it defines
// Symbol.asyncIterator; resources are disposed in reverse order, also when
// the block throws.
func TestUsingDeclarationsDispose(t *testing.T) {
	const src = `
aios.registerTool({ name: 'use' }, async () => {
  const log: string[] = [];
  const res = (name: string) => ({ [Symbol.dispose]() { log.push('dispose ' + name); } });
  {
    using a = res('a');
    using b = res('b');
    log.push('body');
  }
  {
    await using c = { async [Symbol.asyncDispose]() { log.push('async dispose c'); } };
    log.push('async body');
  }
  try {
    using d = res('d');
    throw new Error('in block');
  } catch (e) {
    log.push('caught ' + (e as Error).message);
  }
  return { log, kinds: [typeof Symbol.dispose, typeof Symbol.asyncDispose] };
});
`
	want := map[string]any{
		"log":   []any{"body", "dispose b", "dispose a", "async body", "async dispose c", "dispose d", "caught in block"},
		"kinds": []any{"symbol", "symbol"},
	}
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			path := writeSource(t, "use.ts", src)
			p, err := newRuntime(t, Options{Isolation: iso}).load(context.Background(), abi.Source{Path: path}, abi.RuntimeTS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			got, err := callIsolated(t, p, newFakeEnv(), "use", map[string]any{}, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}
