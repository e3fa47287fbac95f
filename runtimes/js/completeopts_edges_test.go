package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCompleteOptionsUnknownAndNonFinite: ctx.ai.complete's options are the ones
// aios-sdk.d.ts declares; a misspelt one ({maxtokens: 50}, {temprature:
// 0}) was dropped without a word and the backend's defaults used, where
// Python's ctx.ai.complete(max_token=50) raises TypeError. It is refused
// with InvalidParams naming the closest option, as a misspelt tool
// definition member is. A number option that is NaN or infinite was
// refused as a ProviderError "TypeError: ctx.ai.complete options:
// $.temperature: NaN is not a JSON number" where an option out of range is
// InvalidParams naming it; it is InvalidParams naming the option too.
func TestCompleteOptionsUnknownAndNonFinite(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "opts.js", `
const ask = async (ctx, opts) => { try { return await ctx.ai.complete('hi', opts); } catch (e) { return e.code + ': ' + e.message; } };
aios.registerTool({ name: 'misspelt', parameters: {} }, (p, ctx) => ask(ctx, { maxtokens: 50 }));
aios.registerTool({ name: 'unknown', parameters: {} }, (p, ctx) => ask(ctx, { model: 'm', stream: true }));
aios.registerTool({ name: 'nan', parameters: {} }, (p, ctx) => ask(ctx, { temperature: NaN }));
aios.registerTool({ name: 'inf', parameters: {} }, (p, ctx) => ask(ctx, { maxTokens: Infinity }));
aios.registerTool({ name: 'ok', parameters: {} }, (p, ctx) => ask(ctx, { max_tokens: 5, system: 's', temperature: 0.5, model: 'm', extra: undefined }));
`)
	env := newFakeEnv()
	var got abi.CompleteRequest
	env.complete = func(req abi.CompleteRequest) (abi.CompleteResponse, error) {
		got = req
		return abi.CompleteResponse{Text: "answer"}, nil
	}
	for _, c := range []struct{ tool, want string }{
		{"misspelt", `InvalidParams: ctx.ai.complete: unknown option "maxtokens" (did you mean maxTokens?); the options are maxTokens (or max_tokens), system, temperature, model and stop`},
		{"unknown", `InvalidParams: ctx.ai.complete: unknown option "stream"; the options are maxTokens (or max_tokens), system, temperature, model and stop`},
		{"nan", "InvalidParams: ctx.ai.complete: option temperature must be a finite number, got NaN"},
		{"inf", "InvalidParams: ctx.ai.complete: option maxTokens must be an integer from 0 to 2147483647, got Infinity"},
		{"ok", "answer"},
	} {
		v, err := call(t, p, env, c.tool, map[string]any{}, 5*time.Second)
		if s, _ := v.(string); err != nil || !strings.HasPrefix(s, c.want) {
			t.Errorf("%s: got %q, %v; want %q", c.tool, v, err, c.want)
		}
	}
	if got.MaxTokens != 5 || got.System != "s" || got.Model != "m" || got.Temperature == nil || *got.Temperature != 0.5 {
		t.Errorf("ok: the backend was asked %+v", got)
	}
}
