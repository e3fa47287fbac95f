package js

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestSparseArrayResult: a sparse array of length 2^32-1 holds one
// element; converting it must not allocate a slot per index (goja's Export
// made a 64 GiB slice, a fatal out-of-memory error of the host process).
func TestSparseArrayResult(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "sparse.js", `
function sparse() { const a = []; a[4294967294] = 1; return a; }
aios.registerTool({ name: 'plain' }, () => ({ x: sparse() }));
aios.registerTool({ name: 'nested' }, () => [[{ y: sparse() }]]);
aios.registerTool({ name: 'set' }, () => new Set([sparse()]));
aios.registerTool({ name: 'map' }, () => new Map([[1, sparse()]]));
aios.registerTool({ name: 'error' }, () => { const e = new Error('x'); e.big = sparse(); return e; });
aios.registerTool({ name: 'args' }, function () { return (function () { return arguments; })(sparse()); });
aios.registerTool({ name: 'wrapper' }, () => { const s = new String('ab'); s.big = sparse(); return [s]; });
aios.registerTool({ name: 'call' }, async (p, ctx) => ctx.callTool('x', { a: [sparse()] }));
aios.registerTool({ name: 'data' }, () => { throw new aios.ToolError('InvalidParams', 'bad', [sparse()]); });
aios.registerTool({ name: 'small' }, () => { const a = [1]; a[3] = 2; const s = new String('ab'); s.x = 1; return { a, s, set: new Set([[1], { b: undefined }]) }; });
`)
	env := newFakeEnv()
	env.tools["x"] = func(context.Context, any) (any, error) { return "called", nil }
	for _, tool := range []string{"plain", "nested", "set", "args"} {
		_, err := call(t, p, env, tool, map[string]any{}, 5*time.Second)
		te := wantCode(t, err, abi.TooLarge)
		if !strings.Contains(te.Message, "4294967295") && !strings.Contains(te.Message, "limit") {
			t.Errorf("%s: %s", tool, te.Message)
		}
	}
	_, err := call(t, p, env, "map", map[string]any{}, 5*time.Second)
	wantCode(t, err, abi.InvalidResult)
	// An Error is refused before its properties are read
	// (TestErrorResultRefused): nothing of the sparse array is made.
	_, err = call(t, p, env, "error", map[string]any{}, 5*time.Second)
	if te := wantCode(t, err, abi.InvalidResult); !strings.Contains(te.Message, "an Error (Error) is not a JSON value") {
		t.Errorf("error: %s", te.Message)
	}
	// ctx.callTool's params are refused in the handler (a TypeError at
	// the provider's line, not the SDK prelude's).
	_, err = call(t, p, env, "call", map[string]any{}, 5*time.Second)
	if te := wantCode(t, err, abi.ProviderError); !strings.Contains(te.Message, "4294967295") || !strings.Contains(te.Message, "(at sparse.js:10:") {
		t.Errorf("call: %s", te.Message)
	}
	// A String object is its string, as in JSON: its other properties
	// are not read.
	if res, err := call(t, p, env, "wrapper", map[string]any{}, 5*time.Second); err != nil || !reflect.DeepEqual(res, []any{"ab"}) {
		t.Errorf("wrapper = %#v, %v", res, err)
	}
	_, err = call(t, p, env, "data", map[string]any{}, 5*time.Second)
	wantCode(t, err, abi.InvalidParams)
	res, err := call(t, p, env, "small", map[string]any{}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": []any{int64(1), nil, nil, int64(2)}, "s": "ab",
		"set": []any{[]any{int64(1)}, map[string]any{}}}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("result = %#v, want %#v", res, want)
	}
}

// TestSharedSubtreeResult: a result whose objects share children (a
// DAG of 40 levels, 2^40 paths) is TooLarge at once; its conversion must
// not build a Go map per path (gigabytes, out of reach of the memory guard,
// which cannot interrupt Go code) nor run past the deadline.
func TestSharedSubtreeResult(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "dag.js", `
aios.registerTool({ name: 'objects' }, () => { let a = {}; for (let i = 0; i < 40; i++) a = { x: a, y: a }; return a; });
aios.registerTool({ name: 'arrays' }, () => { let a = [1]; for (let i = 0; i < 40; i++) a = [a, a]; return a; });
aios.registerTool({ name: 'deep' }, () => { let a = {}; for (let i = 0; i < 400; i++) a = { x: a }; let b = a; for (let i = 0; i < 200; i++) b = [b]; return [a, b]; });
aios.registerTool({ name: 'diamond' }, () => { const s = { v: 'shared', n: [1, 2] }; return { a: s, b: [s, s], c: { d: s } }; });
`)
	for _, tool := range []string{"objects", "arrays"} {
		start := time.Now()
		_, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 30*time.Second)
		wantCode(t, err, abi.TooLarge)
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: TooLarge after %v", tool, d)
		}
	}
	// A shared subtree reached deeper the second time is still bounded
	// by the nesting limit (401 levels at depth 201).
	_, err := call(t, p, newFakeEnv(), "deep", map[string]any{}, 5*time.Second)
	if te := wantCode(t, err, abi.InvalidResult); !strings.Contains(te.Message, "nested deeper than 512") {
		t.Errorf("deep: %s", te.Message)
	}
	res, err := call(t, p, newFakeEnv(), "diamond", map[string]any{}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s := map[string]any{"v": "shared", "n": []any{int64(1), int64(2)}}
	if want := map[string]any{"a": s, "b": []any{s, s}, "c": map[string]any{"d": s}}; !reflect.DeepEqual(res, want) {
		t.Errorf("diamond = %#v", res)
	}
}

// TestThrowingAccessors: JS run by the conversion of a result or of a
// thrown value (getters) that loops is a Timeout, and one that throws is a
// ProviderError — not ProviderCrashed "JS runtime panicked".
func TestThrowingAccessors(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "acc.js", `
aios.registerTool({ name: 'loopget' }, () => ({ x: { get y() { for (;;) {} } } }));
aios.registerTool({ name: 'loopmsg' }, () => { throw { get message() { for (;;) {} } }; });
aios.registerTool({ name: 'throwcode' }, () => { throw { get code() { throw new Error('boom'); } }; });
aios.registerTool({ name: 'loopdata' }, async () => { await null; throw new aios.ToolError('Internal', 'x', { get d() { for (;;) {} } }); });
aios.registerTool({ name: 'ok' }, () => 1);
`)
	for _, tool := range []string{"loopget", "loopmsg", "loopdata"} {
		_, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 300*time.Millisecond)
		wantCode(t, err, abi.Timeout)
	}
	_, err := call(t, p, newFakeEnv(), "throwcode", map[string]any{}, 5*time.Second)
	if te := wantCode(t, err, abi.ProviderError); !strings.Contains(te.Message, "boom") || !strings.Contains(te.Message, "acc.js:4:") {
		t.Errorf("throwcode: %s", te.Message)
	}
	if _, err := call(t, p, newFakeEnv(), "ok", map[string]any{}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

// TestToolOutsideAgentClass: a @tool method of a class without @Agent
// fails the load even when a later class has @Agent (it was registered
// bound to the later class's instance, so its `this` was the wrong object).
func TestToolOutsideAgentClass(t *testing.T) {
	const src = `import { Agent, tool } from 'aios-sdk';
class Helper {
  x = 'helper';
  @tool({ name: 'a' }) h() { return { who: this.x }; }
}
@Agent({ name: 'M' })
class Main {
  x = 'main';
  @tool({ name: 'b' }) m() { return { who: this.x }; }
}
`
	rt := newRuntime(t, Options{})
	for _, pragma := range []string{"", "// @aios-decorators experimental\n"} {
		path := writeSource(t, "two.ts", pragma+src)
		_, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeTS)
		if err == nil || !strings.Contains(err.Error(), "h is not a method of the @Agent class Main") {
			t.Errorf("%q: load error = %v, want one naming h and Main", pragma, err)
		}
	}
	// Tools declared in a base class and served by an @Agent subclass
	// stay allowed: the instance has them.
	for _, pragma := range []string{"", "// @aios-decorators experimental\n"} {
		p := loadSource(t, rt, "sub.ts", pragma+`import { Agent, tool } from 'aios-sdk';
class Base {
  x = 'base';
  @tool({ name: 'a' }) h() { return { who: this.x }; }
}
@Agent({ name: 'S' })
class Sub extends Base {
  y = 'sub';
  @tool({ name: 'b' }) m() { return { who: this.x + this.y }; }
}
`)
		for tool, want := range map[string]string{"a": "base", "b": "basesub"} {
			res, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 5*time.Second)
			if err != nil || !reflect.DeepEqual(res, map[string]any{"who": want}) {
				t.Errorf("%q %s: %v %v", pragma, tool, res, err)
			}
		}
	}
}

// TestLoadGetters: the top-level code's thrown value and the tool
// definitions are read after the top-level code ran; a getter there that
// loops hung the load for good (no deadline was armed), and one that
// throws panicked out of Load.
func TestLoadGetters(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"thrown loops", "aios.registerTool({ name: 'a' }, () => 1);\nthrow { get message() { for (;;) {} } };\n", "deadline exceeded"},
		{"thrown throws", "aios.registerTool({ name: 'a' }, () => 1);\nthrow { get message() { throw new Error('inner'); } };\n", "Error: inner"},
		{"returns loops", "aios.registerTool({ name: 'a', returns: { type: 'object', get title() { for (;;) {} } } }, () => 1);\n", "deadline exceeded"},
		{"examples throw", "aios.registerTool({ name: 'a', examples: [{ get x() { throw new TypeError('nope'); } }] }, () => 1);\n", "TypeError: nope"},
		{"examples sparse", "const a = []; a[4294967294] = 1;\naios.registerTool({ name: 'a', examples: [{ a }] }, () => 1);\n", "4294967295 elements"},
		{"schema loops", "aios.registerTool({ name: 'a', parameters: { type: 'object', get properties() { for (;;) {} } } }, () => 1);\n", "deadline exceeded"},
	}
	rt := newRuntime(t, Options{LoadTimeout: 300 * time.Millisecond})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSource(t, "get.js", tc.src)
			done := make(chan error, 1)
			go func() {
				_, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("load error = %v, want one with %q", err, tc.want)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("load still running after 30s")
			}
		})
	}
}

// TestHugeErrorMessages: an error built from a thrown value is
// bounded (the result is, by MaxResultBytes and the host's
// max_result_bytes; a thrown 5 MB string reached the caller and every
// audit entry whole).
func TestHugeErrorMessages(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "big.js", `
aios.registerTool({ name: 'str' }, () => { throw 'x'.repeat(5e6); });
aios.registerTool({ name: 'err' }, () => { throw new Error('y'.repeat(5e6)); });
aios.registerTool({ name: 'code' }, () => { throw new aios.ToolError('InvalidParams', 'z'.repeat(5e6)); });
aios.registerTool({ name: 'name' }, () => { const e = new Error('m'); e.name = 'N'.repeat(5e6); throw e; });
aios.registerTool({ name: 'stack' }, () => { const f = () => { throw new Error('s'); }; Object.defineProperty(f, 'name', { value: 'F'.repeat(5e6) }); f(); });
`)
	for _, tool := range []string{"str", "err", "code", "name", "stack"} {
		_, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 10*time.Second)
		te, ok := err.(*abi.ToolError)
		if !ok {
			t.Fatalf("%s: %v", tool, err)
		}
		n := len(te.Message)
		if m, ok := te.Data.(map[string]any); ok {
			for _, v := range m {
				if s, ok := v.(string); ok {
					n += len(s)
				}
			}
		}
		if n > 256<<10 {
			t.Errorf("%s: %s error of %d bytes (message and data)", tool, te.Code, n)
		}
	}
}

// TestSymlinkedImportOutsideFolder: a relative import may not leave
// the provider's folder, also not through a symbolic link in it (the
// check was on the import's text; esbuild followed the link and bundled
// any .json, .txt or .js file the host's user can read).
func TestSymlinkedImportOutsideFolder(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "creds.json")
	if err := os.WriteFile(secret, []byte(`{"secret":"hunter2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "notes.txt"), []byte("top secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, Options{})
	for _, tc := range []struct{ link, target, imp string }{
		{"c.json", secret, "./c.json"},
		{"sub", outside, "./sub/notes.txt"},
	} {
		dir := t.TempDir()
		if err := os.Symlink(tc.target, filepath.Join(dir, tc.link)); err != nil {
			t.Fatal(err)
		}
		src := "import x from '" + tc.imp + "';\naios.registerTool({ name: 'leak' }, () => ({ x }));\n"
		if err := os.WriteFile(filepath.Join(dir, "index.js"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := rt.load(context.Background(), abi.Source{Path: dir}, abi.RuntimeJS)
		if err == nil {
			res, _ := call(t, p.(*Provider), newFakeEnv(), "leak", map[string]any{}, 5*time.Second)
			_ = p.Close()
			t.Errorf("%s: loaded; the tool returns %v", tc.imp, res)
		} else if !strings.Contains(err.Error(), "leaves the provider's folder") {
			t.Errorf("%s: %v", tc.imp, err)
		}
	}
	// A link that stays inside the folder is fine.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "real.json"), []byte(`{"ok":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "real.json"), filepath.Join(dir, "alias.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.js"), []byte("import x from './alias.json';\naios.registerTool({ name: 'ok' }, () => x);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := loadPath(t, rt, dir)
	if res, err := call(t, p, newFakeEnv(), "ok", map[string]any{}, 5*time.Second); err != nil || !reflect.DeepEqual(res, map[string]any{"ok": true}) {
		t.Errorf("inside link: %v %v", res, err)
	}
}

// TestLongSparseArrayResult: an array whose Go slice alone would be
// over the provider's memory budget (2e7 holes: 320 MB of slots, within
// MaxResultBytes' count) is TooLarge before the slice is made.
func TestLongSparseArrayResult(t *testing.T) {
	rt := newRuntime(t, Options{MemoryBudget: 64 << 20})
	p := loadSource(t, rt, "long.js", "aios.registerTool({ name: 'long' }, () => { const a = []; a.length = 2e7; return a; });\n"+
		"aios.registerTool({ name: 'ok' }, () => { const a = []; a.length = 1000; return a.length; });\n")
	start := time.Now()
	_, err := call(t, p, newFakeEnv(), "long", map[string]any{}, 30*time.Second)
	if te := wantCode(t, err, abi.TooLarge); !strings.Contains(te.Message, "memory budget") {
		t.Errorf("long: %s", te.Message)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("long: TooLarge after %v", d)
	}
}
