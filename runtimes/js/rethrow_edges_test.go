package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestRejectedWithToolErrorNotBlamedAsValue: an async handler rejected
// with a ToolError of code ProviderError (its own, new
// aios.ToolError('ProviderError', 'upstream failed'), or a nested call's
// failure it let propagate) was told it had rejected with a value that is
// not an Error: "upstream failed (rejected by the handler of tool t, …;
// throw an Error to have the line it was thrown at)", though it threw an
// Error; a nested tool's own such note got a second one naming the outer
// tool. That note is for values that are not Errors only.
func TestRejectedWithToolErrorNotBlamedAsValue(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "re.ts", `
import { ToolError } from 'aios-sdk';
aios.registerTool({ name: 'own', parameters: {} }, async () => { await null; throw new ToolError(ToolError.ProviderError, 'upstream failed'); });
aios.registerTool({ name: 'outer', parameters: {} }, async (p, ctx) => await ctx.callTool('inner', {}));
aios.registerTool({ name: 'str', parameters: {} }, async () => { await null; throw 'not found'; });
`)
	env := newFakeEnv()
	env.tools["inner"] = func(context.Context, any) (any, error) {
		return nil, &abi.ToolError{Code: abi.ProviderError, Message: `uncaught "x" (rejected by the handler of tool inner, registered at in.js:1:1; throw an Error to have the line it was thrown at)`}
	}
	_, err := call(t, p, env, "own", map[string]any{}, 5*time.Second)
	if te := wantCode(t, err, abi.ProviderError); te.Message != "upstream failed" {
		t.Errorf("own: message %q, want the ToolError's own, upstream failed", te.Message)
	}
	_, err = call(t, p, env, "outer", map[string]any{}, 5*time.Second)
	if te := wantCode(t, err, abi.ProviderError); strings.Contains(te.Message, "tool outer") || strings.Count(te.Message, "rejected by the handler") != 1 {
		t.Errorf("outer: message %q, want the nested error's as it came", te.Message)
	}
	// A value that is not an Error keeps its note.
	_, err = call(t, p, env, "str", map[string]any{}, 5*time.Second)
	if te := wantCode(t, err, abi.ProviderError); !strings.Contains(te.Message, "rejected by the handler of tool str, registered at re.ts:5:") {
		t.Errorf("str: message %q, want where its handler was registered", te.Message)
	}
}
