package js

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestErrorColumnsOneBased: runtime errors are mapped to the original
// file through esbuild's source map, whose columns are 0-based, and goja
// printed them as they were: `x.foo()` at the start of a line failed "(at
// a.js:4:0)", every column one less than an editor's (and than esbuild's
// own syntax errors, "bad.ts:3:19", which are 1-based). Both are 1-based
// now.
func TestErrorColumnsOneBased(t *testing.T) {
	rt := newRuntime(t, Options{})
	for _, name := range []string{"col.js", "col.ts"} {
		p := loadSource(t, rt, name, `aios.provider({ id: 'org.test.col' });
aios.registerTool({ name: 'col', parameters: {} }, () => {
  throw new Error('here');
});
aios.registerTool({ name: 'null', parameters: {} }, () => {
  const x = null;
x.foo();
});
`)
		for tool, want := range map[string]string{"col": "(at " + name + ":3:9)", "null": "(at " + name + ":7:1)"} {
			_, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 10*time.Second)
			if te := wantCode(t, err, abi.ProviderError); !strings.Contains(te.Message, want) {
				t.Errorf("%s %s: %q, want %q", name, tool, te.Message, want)
			}
		}
	}
}

// TestVLQRoundTrip guards the source map rewrite of
// TestErrorColumnsOneBased: every value survives encode/decode, and a
// map with no four-field segment is left alone.
func TestVLQRoundTrip(t *testing.T) {
	for v := -5000; v <= 5000; v += 7 {
		var b strings.Builder
		encodeVLQ(&b, v)
		if got, ok := decodeVLQ(b.String()); !ok || len(got) != 1 || got[0] != v {
			t.Fatalf("%d: encoded %q, decoded %v %v", v, b.String(), got, ok)
		}
	}
	// "AAAA" is [0,0,0,0]; "AAAC" the same with source column 1.
	if got, ok := shiftFirstSourceColumn(";;A,AAAA,AAAC"); !ok || got != ";;A,AAAC,AAAC" {
		t.Errorf("shift: %q %v", got, ok)
	}
	if got, ok := shiftFirstSourceColumn("A,C;E"); ok || got != "A,C;E" {
		t.Errorf("no source column: %q %v", got, ok)
	}
	if oneBasedColumns("var a;\n") != "var a;\n" {
		t.Error("code without a map changed")
	}
}

// TestUnawaitedHostCallWarned: a handler that forgets `await` on a
// host call (ctx.spaces.write, ctx.callTool) returned its result while the
// call still ran; the call's outcome was dropped without a word, so a write
// that failed (or was cancelled with the call) went unnoticed. The runtime
// now logs a warning naming the host calls still running and "missing
// await?"; a handler that awaits gets none.
func TestUnawaitedHostCallWarned(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "forgot.js", `aios.provider({ id: 'org.test.forgot' });
aios.registerTool({ name: 'forgot', parameters: {} }, async (params, ctx) => {
  ctx.callTool('slow', {});
  return { ok: true };
});
aios.registerTool({ name: 'awaits', parameters: {} }, async (params, ctx) => {
  await ctx.callTool('fast', {});
  return { ok: true };
});
`)
	env := newFakeEnv()
	release := make(chan struct{})
	defer close(release)
	env.tools["slow"] = func(ctx context.Context, _ any) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	}
	env.tools["fast"] = func(context.Context, any) (any, error) { return 1, nil }
	if _, err := call(t, p, env, "awaits", map[string]any{}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, p, env, "forgot", map[string]any{}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	env.mu.Lock()
	logs := strings.Join(env.logs, "\n")
	env.mu.Unlock()
	if strings.Count(logs, "missing await?") != 1 || !strings.Contains(logs, "WARN") || !strings.Contains(logs, "ctx.callTool") {
		t.Errorf("logs %q, want one warning naming ctx.callTool and \"missing await?\"", logs)
	}
}

// TestNodeGlobalHint: code written for node or a browser (fetch,
// process.env, require, Buffer) failed "ReferenceError: fetch is not
// defined" and nothing more; the message now says that JS tools run on
// goja with the ECMAScript built-ins and the SDK's globals, and what to
// use instead where there is something.
func TestNodeGlobalHint(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "node.js", `aios.provider({ id: 'org.test.node' });
aios.registerTool({ name: 'fetch', parameters: {} }, async () => { await fetch('https://example.com'); });
aios.registerTool({ name: 'env', parameters: {} }, () => process.env.KEY);
aios.registerTool({ name: 'other', parameters: {} }, () => notDefinedAnywhere);
`)
	for tool, want := range map[string]string{"fetch": "no fetch", "env": "no process", "other": ""} {
		_, err := call(t, p, newFakeEnv(), tool, map[string]any{}, 10*time.Second)
		te := wantCode(t, err, abi.ProviderError)
		if want == "" {
			if strings.Contains(te.Message, "goja") {
				t.Errorf("%s: %q has the hint", tool, te.Message)
			}
			continue
		}
		if !strings.Contains(te.Message, want) || !strings.Contains(te.Message, "docs/js.md") || !strings.Contains(te.Message, "(at node.js:") {
			t.Errorf("%s: %q, want the hint %q, docs/js.md and the position", tool, te.Message, want)
		}
	}
}

// TestProviderOptionTypo: aios.provider({capabilites: [...]}) (and
// @Agent({capabilites})) loaded without a word, the provider asking for
// nothing; a tool definition's unknown member has long been refused. The
// provider's options are now checked the same way (Python's @Agent does).
func TestProviderOptionTypo(t *testing.T) {
	rt := newRuntime(t, Options{})
	for name, src := range map[string]string{
		"typo.js": `aios.provider({ id: 'org.test.typo', capabilites: ['ReadSpace(x)'] });
aios.registerTool({ name: 'a', parameters: {} }, () => 1);
`,
		"typo.ts": `import { Agent, tool } from 'aios-sdk';
@Agent({ name: 'T', capabilites: ['ReadSpace(x)'] } as any)
class T {
  @tool({ name: 'a', parameters: {} })
  a() { return 1; }
}
`,
	} {
		path := writeSource(t, name, src)
		_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
		if err == nil || !strings.Contains(err.Error(), `unknown option "capabilites"`) || !strings.Contains(err.Error(), "did you mean capabilities?") || !strings.Contains(err.Error(), name+":") {
			t.Errorf("%s: %v; want an error naming the option, capabilities and the line", name, err)
		}
	}
}

// TestToolErrorUnknownCode: `throw new aios.ToolError('NotAllowed',
// 'nope')` failed "ProviderError: ToolError: nope (at x.js:2:…)", the code
// dropped without a word; a Python tool raising the same is told the code
// is not one of the ABI's. The JS error now says so too, naming the code.
func TestToolErrorUnknownCode(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "code.js", `aios.provider({ id: 'org.test.code' });
aios.registerTool({ name: 'bad', parameters: {} }, () => { throw new aios.ToolError('NotAllowed', 'nope'); });
aios.registerTool({ name: 'good', parameters: {} }, () => { throw new aios.ToolError('InvalidParams', 'no'); });
`)
	_, err := call(t, p, newFakeEnv(), "bad", map[string]any{}, 10*time.Second)
	if te := wantCode(t, err, abi.ProviderError); !strings.Contains(te.Message, "nope") || !strings.Contains(te.Message, `"NotAllowed" is not one of the ABI's`) || !strings.Contains(te.Message, "InvalidParams") {
		t.Errorf("bad: %q", te.Message)
	}
	_, err = call(t, p, newFakeEnv(), "good", map[string]any{}, 10*time.Second)
	wantCode(t, err, abi.InvalidParams)
}

// TestUpperCaseExtension: the host hands Words.JS to the JS runtime
// (extensions match whatever their case), and esbuild refused it: `No
// loader is configured for ".JS" files`. The file now loads as its
// lower-case extension would.
func TestUpperCaseExtension(t *testing.T) {
	rt := newRuntime(t, Options{})
	for _, name := range []string{"Words.JS", "Words.TS"} {
		p := loadSource(t, rt, name, "aios.provider({ id: 'org.test.upper' });\naios.registerTool({ name: 'up', parameters: {} }, () => 1);\n")
		if got, err := call(t, p, newFakeEnv(), "up", map[string]any{}, 10*time.Second); err != nil || got != int64(1) {
			t.Errorf("%s: %v %v", name, got, err)
		}
	}
}

// TestWorkerLoadErrorNotLost: an isolated provider's load error (a
// duplicate tool name, say) reached the author as "the JS worker process
// ended before it registered: use of closed file" when the worker wrote
// its error frame and exited before the host read it: the wait goroutine's
// died() closed the read end of its stdout under the handshake
// (TestProcessIsolationLoadErrors failed so under load). Before the worker
// registers, died leaves the pipe to the handshake, which drains it (its
// reads have a deadline); start closes it after.
func TestWorkerLoadErrorNotLost(t *testing.T) {
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wr.Write([]byte("last words")); err != nil {
		t.Fatal(err)
	}
	wr.Close()
	in, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	rt := newRuntime(t, Options{})
	w := &procWorker{p: &ProcessProvider{rt: rt, logger: slog.New(slog.DiscardHandler)}, stdin: inW, out: r, dead: make(chan struct{})}
	w.died(nil)
	b, err := io.ReadAll(r)
	if err != nil || string(b) != "last words" {
		t.Fatalf("after died before registration: read %q, %v; want the worker's output", b, err)
	}
	r.Close()
}

// TestUnhandledRejectionWarned: a promise a handler made that was rejected
// and that nothing handled (Promise.reject left alone; a host call that
// failed, not awaited, while the handler awaited something else) was
// dropped without a word when the call succeeded (p42's note). The
// rejection tracker now has the call log a warning naming the first error
// and "missing await?"; a rejection handled later in the call (an await, a
// .catch), or the handler's own (its call fails with it), gives none.
func TestUnhandledRejectionWarned(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "rejects.js", `aios.provider({ id: 'org.test.rejects' });
aios.registerTool({ name: 'left', parameters: {} }, async (params, ctx) => {
  Promise.reject(new Error('write failed: quota'));
  await ctx.callTool('fast', {});
  return { ok: true };
});
aios.registerTool({ name: 'leftsync', parameters: {} }, (params, ctx) => {
  Promise.reject(new Error('sync boom'));
  return { ok: true };
});
aios.registerTool({ name: 'handled', parameters: {} }, async (params, ctx) => {
  const a = Promise.reject(new Error('handled later'));
  await ctx.callTool('fast', {});
  try { await a; } catch (e) {}
  await Promise.reject(new Error('caught')).catch(() => 0);
  return { ok: true };
});
aios.registerTool({ name: 'throws', parameters: {} }, async (params, ctx) => {
  throw new Error('own error');
});
`)
	env := newFakeEnv()
	env.tools["fast"] = func(context.Context, any) (any, error) { return 1, nil }
	logs := func() string {
		env.mu.Lock()
		defer env.mu.Unlock()
		l := strings.Join(env.logs, "\n")
		env.logs = nil
		return l
	}
	for _, c := range []struct {
		tool, want string
	}{
		{"left", "write failed: quota"},
		{"leftsync", "sync boom"},
	} {
		if _, err := call(t, p, env, c.tool, map[string]any{}, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		if l := logs(); strings.Count(l, "missing await?") != 1 || !strings.Contains(l, c.want) || !strings.Contains(l, "rejected and nothing handled them") {
			t.Errorf("%s: logs %q, want one warning naming %q", c.tool, l, c.want)
		}
	}
	if _, err := call(t, p, env, "handled", map[string]any{}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, p, env, "throws", map[string]any{}, 10*time.Second); err == nil || !strings.Contains(err.Error(), "own error") {
		t.Fatalf("throws: %v", err)
	}
	// The failed call's own rejection is not carried into the next call.
	if _, err := call(t, p, env, "handled", map[string]any{}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if l := logs(); strings.Contains(l, "nothing handled") {
		t.Errorf("handled rejections (or the handler's own) warned about: %q", l)
	}
}

// TestToolErrorMessageNotString: `new aios.ToolError('NotFound', {id: 3})`,
// the details meant as data, failed "ToolError: [object Object]". The
// constructor refuses a message that is no string, saying how to give
// details, at the line that made it.
func TestToolErrorMessageNotString(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "msg.js", `aios.provider({ id: 'org.test.msg' });
aios.registerTool({ name: 'obj', parameters: {} }, () => {
  throw new aios.ToolError('NotFound', { id: 3 });
});
aios.registerTool({ name: 'nomsg', parameters: {} }, () => { throw new aios.ToolError('NotFound'); });
`)
	_, err := call(t, p, newFakeEnv(), "obj", map[string]any{}, 10*time.Second)
	if te := wantCode(t, err, abi.ProviderError); !strings.Contains(te.Message, "the message must be a string, got an object") ||
		!strings.Contains(te.Message, `new ToolError("NotFound", 'what went wrong', {...})`) || !strings.Contains(te.Message, "msg.js:3") || strings.Contains(te.Message, "[object Object]") {
		t.Errorf("obj: %q", te.Message)
	}
	// No message at all stays allowed.
	_, err = call(t, p, newFakeEnv(), "nomsg", map[string]any{}, 10*time.Second)
	wantCode(t, err, abi.NotFound)
}
