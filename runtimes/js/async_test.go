package js

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

const asyncProvider = `
import { registerTool, ToolError } from 'aios-sdk';

registerTool({ name: 'parallel', parameters: { type: 'object' } }, async (p, ctx) => {
  const t0 = Date.now();
  const [a, b] = await Promise.all([ctx.callTool('slow', { n: 1 }), ctx.callTool('slow', { n: 2 })]);
  return { a, b, ms: Date.now() - t0 };
});

registerTool({ name: 'spaces', parameters: { type: 'object' } }, async (p, ctx) => {
  const textId = await ctx.spaces.write('docs', 'héllo');
  const binId = await ctx.spaces.write('docs', new Uint8Array([0xff, 0x00, 0x41]));
  const text = await ctx.spaces.read(textId);
  const bin = await ctx.spaces.read(binId, 'docs');
  const raw = await ctx.spaces.readBytes(textId);
  ctx.log('read', text.length, 'chars');
  ctx.log.warn('careful');
  console.error('via console');
  return {
    textId, text, textType: typeof text,
    binIsBytes: bin instanceof Uint8Array, bin: Array.from(bin),
    rawLen: raw.length,
  };
});

registerTool({ name: 'missing', parameters: { type: 'object' } }, async (p, ctx) => {
  return await ctx.callTool('no-such-tool', {});
});

registerTool({ name: 'caught', parameters: { type: 'object' } }, async (p, ctx) => {
  try {
    await ctx.callTool('no-such-tool', {});
  } catch (e) {
    return { code: e.code, isToolError: e instanceof ToolError, message: e.message };
  }
});

registerTool({ name: 'custom', parameters: { type: 'object' } }, () => {
  throw new ToolError('InvalidParams', 'bad widget', { field: 'widget' });
});

registerTool({ name: 'timers', parameters: { type: 'object' } }, async () => {
  const order = [];
  const cancelled = setTimeout(() => order.push('cancelled'), 5);
  clearTimeout(cancelled);
  await new Promise((r) => setTimeout(() => { order.push('timer'); r(); }, 10));
  queueMicrotask(() => order.push('micro'));
  await null;
  order.push('after');
  return { order };
});

registerTool({ name: 'info', parameters: { type: 'object' } }, (p, ctx) => {
  const c = ctx.call;
  return { id: c.id, tool: c.tool, caller: c.caller, depth: c.depth, hasDeadline: c.deadline > Date.now() };
});
`

func TestAsyncHostCalls(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "async.ts", asyncProvider)
	env := newFakeEnv()
	env.tools["slow"] = func(ctx context.Context, params any) (any, error) {
		time.Sleep(60 * time.Millisecond)
		return params, nil
	}

	t.Run("parallel host calls", func(t *testing.T) {
		res, err := call(t, p, env, "parallel", map[string]any{}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		m := res.(map[string]any)
		if !reflect.DeepEqual(m["a"], map[string]any{"n": int64(1)}) || !reflect.DeepEqual(m["b"], map[string]any{"n": int64(2)}) {
			t.Errorf("result = %v", m)
		}
		if ms := m["ms"].(int64); ms >= 110 {
			t.Errorf("two 60 ms host calls took %d ms: they did not run concurrently", ms)
		}
	})

	t.Run("spaces", func(t *testing.T) {
		res, err := call(t, p, env, "spaces", map[string]any{}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		m := res.(map[string]any)
		if m["text"] != "héllo" || m["textType"] != "string" || m["binIsBytes"] != true ||
			!reflect.DeepEqual(m["bin"], []any{int64(255), int64(0), int64(65)}) || m["rawLen"] != int64(6) {
			t.Errorf("result = %v", m)
		}
		if id, _ := m["textId"].(string); !strings.HasPrefix(id, "sha256:") {
			t.Errorf("write returned %v, want an ObjectId", m["textId"])
		}
		logs := strings.Join(env.logs, "\n")
		for _, want := range []string{"INFO read 5 chars", "WARN careful", "ERROR via console"} {
			if !strings.Contains(logs, want) {
				t.Errorf("logs %q lack %q", logs, want)
			}
		}
	})

	t.Run("nested ToolError unchanged", func(t *testing.T) {
		_, err := call(t, p, env, "missing", map[string]any{}, 5*time.Second)
		te := wantCode(t, err, abi.NotFound)
		if te.Message != `no tool "no-such-tool"` {
			t.Errorf("message = %q, want the nested error's message unchanged", te.Message)
		}
	})

	t.Run("ToolError catchable in JS", func(t *testing.T) {
		res, err := call(t, p, env, "caught", map[string]any{}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"code": "NotFound", "isToolError": true, "message": `no tool "no-such-tool"`}
		if !reflect.DeepEqual(res, want) {
			t.Errorf("result = %v, want %v", res, want)
		}
	})

	t.Run("ToolError thrown by the tool", func(t *testing.T) {
		_, err := call(t, p, env, "custom", map[string]any{}, 5*time.Second)
		te := wantCode(t, err, abi.InvalidParams)
		if te.Message != "bad widget" || !reflect.DeepEqual(te.Data, map[string]any{"field": "widget"}) {
			t.Errorf("error = %+v", te)
		}
	})

	t.Run("timers", func(t *testing.T) {
		res, err := call(t, p, env, "timers", map[string]any{}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"order": []any{"timer", "micro", "after"}}
		if !reflect.DeepEqual(res, want) {
			t.Errorf("result = %v, want %v", res, want)
		}
	})

	t.Run("call info", func(t *testing.T) {
		res, err := call(t, p, env, "info", map[string]any{}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"id": "c1", "tool": "info", "caller": "", "depth": int64(0), "hasDeadline": true}
		if !reflect.DeepEqual(res, want) {
			t.Errorf("result = %v, want %v", res, want)
		}
	})
}
