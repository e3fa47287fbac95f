package js

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestLoadErrors covers sources that must not load; each error names the
// problem, and syntax errors carry the original file:line:col.
func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name, file, src string
		want            []string
	}{
		{"ts syntax error", "bad.ts", "import { registerTool } from 'aios-sdk';\n\nconst x: number = ;\n",
			[]string{"bad.ts:3:19:", "Unexpected \";\""}},
		{"ts type syntax error", "bad2.ts", "let a: Array<number = [];\n", []string{"bad2.ts:1:"}},
		{"js syntax error", "bad.js", "aios.registerTool({name: 'x'}, () => {\n  return {;\n});\n", []string{"bad.js:2:11:"}},
		{"registers nothing", "empty.ts", "const x = 1;\n", []string{"registers no tools"}},
		{"duplicate tool names", "dup.js", `
aios.registerTool({ name: 'same' }, () => 1);
aios.registerTool({ name: 'same' }, () => 2);`, []string{`duplicate tool name "same"`, "dup.js:3:"}},
		{"misspelled member", "typo.js", `
aios.registerTool({ name: 'typo', paramaters: { x: { type: 'integer' } } }, () => 1);`,
			[]string{`typo: unknown member "paramaters" in the tool definition (did you mean parameters?)`, "typo.js:2:"}},
		{"misspelled decorator option", "typo.ts", `import { Agent, tool } from 'aios-sdk';
@Agent({ name: 'T' })
class T {
  @tool({ descripton: 'x' }) a() { return 1; }
}`, []string{`unknown member "descripton"`, "did you mean description?"}},
		{"duplicate via decorators", "dup.ts", `import { Agent, tool } from 'aios-sdk';
@Agent({ name: 'D' })
class D {
  @tool({ name: 'x' }) a() { return 1; }
  @tool({ name: 'x' }) b() { return 2; }
}`, []string{`duplicate tool name "x"`}},
		{"tool without Agent", "noagent.ts", `import { tool } from 'aios-sdk';
class D { @tool({ name: 'x' }) a() { return 1; } }`, []string{"not in an @Agent class"}},
		{"top-level throw", "throws.ts", "\n\nthrow new Error('no config');\n", []string{"Error: no config", "throws.ts:3:"}},
		{"import fs", "fs.ts", "import * as fs from 'fs';\naios.registerTool({name: 'x'}, () => fs);\n",
			[]string{`cannot import "fs"`, "fs.ts:1:"}},
		{"require", "req.js", "const cp = require('child_process');\n", []string{`cannot import "child_process"`}},
		{"import outside folder", "up.ts", "import x from '../../etc/passwd';\nconsole.log(x);\n", []string{"leaves the provider's folder"}},
		{"bad tool name", "name.js", "aios.registerTool({ name: 'has space' }, () => 1);\n", []string{`invalid tool name "has space"`}},
		{"bad capability", "cap.js", "aios.provider({ capabilities: ['ReadSpace'] });\naios.registerTool({ name: 'x' }, () => 1);\n",
			[]string{"ReadSpace needs an argument"}},
		{"bad provider id", "id.js", "aios.provider({ id: 'NoDots' });\naios.registerTool({ name: 'x' }, () => 1);\n",
			[]string{`invalid provider id "NoDots"`}},
		{"top-level infinite loop", "loop.js", "for (;;) {}\n", []string{"deadline exceeded"}},
		{"top-level host call", "early.js", "ctx.spaces.read('x');\n", []string{"ctx is not defined"}},
		{"top-level setTimeout", "timer.js", "setTimeout(() => 1, 1);\n", []string{"only available while a tool call runs"}},
	}
	// The infinite loop gets 200 ms; the others a minute: a misspelled
	// member's load passed 200 ms once on a loaded machine (under -race).
	rt := newRuntime(t, Options{LoadTimeout: time.Minute})
	loop := newRuntime(t, Options{LoadTimeout: 200 * time.Millisecond})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSource(t, tc.file, tc.src)
			rt := rt
			if tc.file == "loop.js" {
				rt = loop
			}
			_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
			if err == nil {
				t.Fatal("loaded, want an error")
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	t.Run("top-level memory bomb", func(t *testing.T) {
		// The load timeout is far beyond what the bomb needs even under
		// -race on a loaded machine (seconds: goja builds the strings
		// character by character), so only the memory guard can stop it.
		small := newRuntime(t, Options{MemoryBudget: 32 << 20, LoadTimeout: 5 * time.Minute})
		path := writeSource(t, "bomb.js", "const keep = [];\nfor (;;) keep.push('x'.repeat(1 << 20) + keep.length);\n")
		_, err := small.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
		if err == nil || !strings.Contains(err.Error(), "memory budget exceeded") {
			t.Fatalf("want a memory budget error, got %v", err)
		}
	})
	t.Run("syntax error type", func(t *testing.T) {
		_, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "s.ts", "let = ;")}, abi.RuntimeTS)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("error %T is not a *SyntaxError", err)
		}
	})
}

const badProvider = `import { registerTool } from 'aios-sdk';

function deep(n: number): number { return deep(n + 1) + 1; }

registerTool({ name: 'throws', parameters: { type: 'object' } }, (p: any) => {
  const o: any = undefined;
  return o.field;
});
registerTool({ name: 'rejects', parameters: { type: 'object' } }, async () => {
  await null;
  throw new RangeError('out of range');
});
registerTool({ name: 'throws-string', parameters: { type: 'object' } }, () => { throw 'plain string'; });
registerTool({ name: 'never', parameters: { type: 'object' } }, () => new Promise(() => {}));
registerTool({ name: 'loop', parameters: { type: 'object' } }, () => { for (;;) {} });
registerTool({ name: 'async-loop', parameters: { type: 'object' } }, async () => { await null; while (true) {} });
registerTool({ name: 'recursion', parameters: { type: 'object' } }, () => deep(0));
registerTool({ name: 'bomb', parameters: { type: 'object' } }, () => {
  const keep: string[] = [];
  for (;;) keep.push('x'.repeat(1 << 20) + keep.length);
});
registerTool({ name: 'huge', parameters: { type: 'object' } }, () => 'y'.repeat(8 << 20));
registerTool({ name: 'function', parameters: { type: 'object' } }, () => ({ f: () => 1 }));
registerTool({ name: 'cycle', parameters: { type: 'object' } }, () => { const a: any = { b: {} }; a.b.a = a; return a; });
registerTool({ name: 'bigint', parameters: { type: 'object' } }, () => ({ n: BigInt(2) ** BigInt(70) }));
registerTool({ name: 'nan', parameters: { type: 'object' } }, () => ({ x: [1, NaN] }));
registerTool({ name: 'symbol', parameters: { type: 'object' } }, () => Symbol('x'));
registerTool({ name: 'map', parameters: { type: 'object' } }, () => new Map([['a', 1]]));
registerTool({ name: 'bytes', parameters: { type: 'object' } }, () => ({ b: new Uint8Array(3) }));
registerTool({ name: 'promise-inside', parameters: { type: 'object' } }, () => ({ p: Promise.resolve(1) }));
registerTool({ name: 'getter-throws', parameters: { type: 'object' } }, () => ({ get x() { throw new Error('getter'); } }));
registerTool({ name: 'timer-throws', parameters: { type: 'object' } }, () => new Promise(() => { setTimeout(() => { throw new Error('in timer'); }, 1); }));
registerTool({ name: 'ok', parameters: { type: 'object' } }, () => ({
  ok: true, date: new Date(0), undef: undefined, arr: [undefined, 1.5, -0, 2 ** 53], nested: { s: new String('s') },
}));
`

// TestBadHandlers covers handlers that fail in every way the issue lists;
// after each, the provider still serves.
func TestBadHandlers(t *testing.T) {
	rt := newRuntime(t, Options{MemoryBudget: 64 << 20, MaxResultBytes: 4 << 20, MaxCallStackSize: 2000})
	p := loadSource(t, rt, "bad.ts", badProvider)
	env := newFakeEnv()
	cases := []struct {
		tool    string
		timeout time.Duration
		code    abi.ErrorCode
		want    []string
	}{
		{"throws", 10 * time.Second, abi.ProviderError, []string{"TypeError", "bad.ts:7:"}},
		{"rejects", 10 * time.Second, abi.ProviderError, []string{"RangeError: out of range", "bad.ts:11:"}},
		{"throws-string", 10 * time.Second, abi.ProviderError, []string{`uncaught "plain string"`}},
		{"never", 100 * time.Millisecond, abi.Timeout, []string{"deadline exceeded"}},
		{"loop", 100 * time.Millisecond, abi.Timeout, []string{"deadline exceeded"}},
		{"async-loop", 100 * time.Millisecond, abi.Timeout, []string{"deadline exceeded"}},
		{"recursion", 10 * time.Second, abi.ProviderCrashed, []string{"stack overflow", "bad.ts:3:"}},
		{"bomb", 5 * time.Minute, abi.ProviderCrashed, []string{"memory budget exceeded", "64 MiB"}}, // only the guard, never the deadline, may stop it
		{"huge", 20 * time.Second, abi.TooLarge, []string{"larger than the JS runtime's bound of 4194304 bytes", "limits.max_result_bytes"}},
		{"function", 10 * time.Second, abi.InvalidResult, []string{"$.f: a function is not a JSON value"}},
		{"cycle", 10 * time.Second, abi.InvalidResult, []string{"$.b.a: cycle"}},
		{"bigint", 10 * time.Second, abi.InvalidResult, []string{"$.n: a BigInt (1180591620717411303424) outside the int64 and uint64 ranges"}},
		{"nan", 10 * time.Second, abi.InvalidResult, []string{"$.x[1]: NaN is not a JSON number"}},
		{"symbol", 10 * time.Second, abi.InvalidResult, []string{"$: a Symbol"}},
		{"map", 10 * time.Second, abi.InvalidResult, []string{"a Map is not a JSON value"}},
		{"bytes", 10 * time.Second, abi.InvalidResult, []string{"$.b: binary data (Uint8Array)"}},
		{"promise-inside", 10 * time.Second, abi.InvalidResult, []string{"$.p: a Promise", "missing await"}},
		{"getter-throws", 10 * time.Second, abi.ProviderError, []string{"Error: getter"}},
		{"timer-throws", 10 * time.Second, abi.ProviderError, []string{"uncaught in a timer callback", "Error: in timer"}},
		{"no-such-tool", 10 * time.Second, abi.NotFound, []string{`no tool "no-such-tool"`}},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			start := time.Now()
			_, err := call(t, p, env, tc.tool, map[string]any{}, tc.timeout)
			te := wantCode(t, err, tc.code)
			t.Log(te.Message)
			for _, w := range tc.want {
				if !strings.Contains(te.Message, w) {
					t.Errorf("message %q lacks %q", te.Message, w)
				}
			}
			if tc.code == abi.Timeout && time.Since(start) > tc.timeout+500*time.Millisecond {
				t.Errorf("timeout took %v for a %v deadline", time.Since(start), tc.timeout)
			}
			// The host keeps serving: the same provider answers next.
			res, err := call(t, p, env, "ok", map[string]any{}, 5*time.Second)
			if err != nil {
				t.Fatalf("after %s: %v", tc.tool, err)
			}
			want := map[string]any{"ok": true, "date": "1970-01-01T00:00:00.000Z", "arr": []any{nil, 1.5, int64(0), int64(1 << 53)}, "nested": map[string]any{"s": "s"}}
			if !equalJSON(res, want) {
				t.Errorf("ok = %#v, want %#v", res, want)
			}
		})
	}
}

func equalJSON(a, b any) bool {
	ja, err1 := abi.JSON.Marshal(a)
	jb, err2 := abi.JSON.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
