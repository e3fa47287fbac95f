package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestSpaceWriteLoneSurrogate: ctx.spaces.write of a string holding
// half of a UTF-16 surrogate pair ('a\ud800b', text cut inside an emoji)
// stored "a\ufffdb", other text than the tool's, without a word, where a
// Python tool's ctx.spaces.write raises (str.encode) and ctx.callTool's
// params refuse it (TestLoneSurrogateStringRefused). It throws a TypeError
// naming the code unit and its index, in process and in a worker process;
// whole pairs and a real U+FFFD are stored as UTF-8 unchanged.
func TestSpaceWriteLoneSurrogate(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "sw.js", `
const w = async (ctx, d) => {
  try { const id = await ctx.spaces.write('s', d); return Array.from(await ctx.spaces.readBytes(id)).join(','); }
  catch (e) { return e.name + ': ' + e.message; }
};
aios.registerTool({name: 'lone', parameters: {type: 'object'}}, (p, ctx) => w(ctx, 'a\ud800b'));
aios.registerTool({name: 'low', parameters: {type: 'object'}}, (p, ctx) => w(ctx, '\ufffd\udc00'));
aios.registerTool({name: 'fine', parameters: {type: 'object'}}, (p, ctx) => w(ctx, '\ufffd\ud83d\ude00'));
`)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			call := func(tool string) string {
				c := &abi.ToolCall{ID: "c1", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(5 * time.Second)}
				env.call = c
				v, err := p.Call(context.Background(), c, env)
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				s, _ := v.(string)
				return s
			}
			if got := call("lone"); !strings.HasPrefix(got, "TypeError: ctx.spaces.write") || !strings.Contains(got, `\ud800 at index 1`) {
				t.Errorf("lone: %q; want a TypeError naming \\ud800 at index 1", got)
			}
			if got := call("low"); !strings.HasPrefix(got, "TypeError: ctx.spaces.write") || !strings.Contains(got, `\udc00 at index 1`) {
				t.Errorf("low: %q; want a TypeError naming \\udc00 at index 1", got)
			}
			if got, want := call("fine"), "239,191,189,240,159,152,128"; got != want {
				t.Errorf("fine: %q; want the UTF-8 bytes %s", got, want)
			}
			if len(env.objects) != 1 {
				t.Errorf("%d objects stored; want only the whole text's", len(env.objects))
			}
		})
	}
}

// TestSpaceWriteDataTypeNamed: ctx.spaces.write of a typed array
// other than a Uint8Array was refused as "data must be a string,
// Uint8Array or ArrayBuffer, got 258" (a Uint16Array [258]: its elements
// joined, read as a number; a Float64Array of a million zeros, two
// megabytes of "0,0,…" in the error), an array as "got 1,2". The error
// names the typed array and its length, and how to write its bytes; an
// array by its length; a ctx.spaces.read id likewise.
func TestSpaceWriteDataTypeNamed(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "types.js", `
const w = async (ctx, d) => { try { await ctx.spaces.write('s', d); return 'written'; } catch (e) { return e.message; } };
aios.registerTool({name: 'u16', parameters: {type: 'object'}}, (p, ctx) => w(ctx, new Uint16Array([258])));
aios.registerTool({name: 'f64', parameters: {type: 'object'}}, (p, ctx) => w(ctx, new Float64Array(1000000)));
aios.registerTool({name: 'arr', parameters: {type: 'object'}}, (p, ctx) => w(ctx, [1, 2]));
aios.registerTool({name: 'clamped', parameters: {type: 'object'}}, (p, ctx) => w(ctx, new Uint8ClampedArray([1])));
aios.registerTool({name: 'readarr', parameters: {type: 'object'}}, async (p, ctx) => { try { await ctx.spaces.read(new Array(100000).fill(7)); } catch (e) { return e.message; } });
`)
	env := newFakeEnv()
	for tool, want := range map[string]string{
		"u16":     "got a Uint16Array of 1 elements: write its bytes as new Uint8Array(a.buffer, a.byteOffset, a.byteLength)",
		"f64":     "got a Float64Array of 1000000 elements: write its bytes",
		"arr":     "got an array of 2 elements",
		"clamped": "written",
		"readarr": "ctx.spaces.read: argument 1 must be a string, got an array of 100000 elements",
	} {
		v, err := call(t, p, env, tool, map[string]any{}, 10*time.Second)
		s, _ := v.(string)
		if err != nil || !strings.Contains(s, want) || len(s) > 300 {
			t.Errorf("%s: %.300q %v; want %q in a short message", tool, s, err, want)
		}
	}
}

// TestSpaceWriteDataView: ctx.spaces.write of a DataView, the view of
// bytes binary code builds a header with, was refused as "data must be a
// string, Uint8Array or ArrayBuffer, got [object DataView]", naming
// neither what it was nor how to write it. Its bytes, the window of its
// buffer it views, are stored, in process and in a worker process; a
// plain object dressed as one (DataView.prototype, Symbol.toStringTag)
// is still refused.
func TestSpaceWriteDataView(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "dv.js", `
const w = async (ctx, d) => {
  try { const id = await ctx.spaces.write('s', d); return Array.from(await ctx.spaces.readBytes(id)).join(','); }
  catch (e) { return e.name + ': ' + e.message; }
};
aios.registerTool({name: 'view', parameters: {type: 'object'}}, (p, ctx) => {
  const b = new ArrayBuffer(8);
  new Uint8Array(b).set([9, 8, 7, 6, 5, 4, 3, 2]);
  const d = new DataView(b, 2, 3);
  d.setUint8(0, 42);
  return w(ctx, d);
});
aios.registerTool({name: 'fake', parameters: {type: 'object'}}, (p, ctx) =>
  w(ctx, Object.setPrototypeOf({byteLength: 2, byteOffset: 0, buffer: new ArrayBuffer(2), [Symbol.toStringTag]: 'DataView'}, DataView.prototype)));
`)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			call := func(tool string) string {
				c := &abi.ToolCall{ID: "c1", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(10 * time.Second)}
				env.call = c
				v, err := p.Call(context.Background(), c, env)
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				s, _ := v.(string)
				return s
			}
			if got, want := call("view"), "42,6,5"; got != want {
				t.Errorf("DataView(b, 2, 3): stored %q; want its three bytes %s", got, want)
			}
			if got := call("fake"); !strings.Contains(got, "ctx.spaces.write: data must be") {
				t.Errorf("an object with DataView's prototype: %q; want it refused", got)
			}
		})
	}
}
