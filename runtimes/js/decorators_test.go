package js

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestProviderStyles loads the same tool written in each supported style and
// calls it: standard TC39 decorators (default), TypeScript
// experimentalDecorators (pragma), JS decorators, plain aios.registerTool,
// and the 'aios-sdk' module's registerTool.
func TestProviderStyles(t *testing.T) {
	const body = `
  @tool({ name: 'greet', parameters: { who: { type: 'string' } } })
  async greet(params: { who: string }, ctx: AgentContext) {
    return { text: this.prefix() + params.who, tool: ctx.call.tool };
  }
  prefix() { return 'hello, '; }
}`
	cases := []struct {
		name, file, src, mode string
	}{
		{"ts standard", "std.ts", "import { Agent, tool } from 'aios-sdk';\n@Agent({ name: 'G' })\nclass G {" + body, decoratorsDefault},
		{"ts experimental", "exp.ts", "// @aios-decorators experimental\nimport { Agent, tool } from 'aios-sdk';\n@Agent({ name: 'G' })\nclass G {" + body, decoratorsExperimental},
		{"ts standard pragma", "std2.ts", "// @aios-decorators standard\nimport { Agent, tool } from 'aios-sdk';\n@Agent({ name: 'G' })\nclass G {" + body, decoratorsStandard},
		{"js decorators", "dec.js", `import { Agent, tool } from 'aios-sdk';
@Agent({ name: 'G' })
class G {
  @tool({ name: 'greet', parameters: { who: { type: 'string' } } })
  async greet(params, ctx) { return { text: this.prefix() + params.who, tool: ctx.call.tool }; }
  prefix() { return 'hello, '; }
}`, decoratorsDefault},
		{"js registerTool global", "plain.js", `
aios.registerTool({ name: 'greet', parameters: { who: { type: 'string' } } },
  (params, ctx) => ({ text: 'hello, ' + params.who, tool: ctx.call.tool }));`, decoratorsDefault},
		{"ts registerTool import", "plain.ts", `import { registerTool } from 'aios-sdk';
registerTool({ name: 'greet', parameters: { who: { type: 'string' } } },
  async (params: { who: string }, ctx: AgentContext) => ({ text: 'hello, ' + params.who, tool: ctx.call.tool }));`, decoratorsDefault},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSource(t, tc.file, tc.src)
			b, err := bundleFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if b.Decorators != tc.mode {
				t.Errorf("decorator mode = %q, want %q", b.Decorators, tc.mode)
			}
			switch {
			case tc.mode == decoratorsExperimental && !strings.Contains(b.Code, "__decorateClass"):
				t.Error("experimental mode did not use TypeScript's legacy decorator helper")
			case strings.Contains(tc.src, "@Agent") && tc.mode != decoratorsExperimental && !strings.Contains(b.Code, "__decorateElement"):
				t.Error("standard mode did not lower TC39 decorators")
			}
			rt := newRuntime(t, Options{})
			p := loadPath(t, rt, path)
			want := map[string]any{"type": "object", "properties": map[string]any{"who": map[string]any{"type": "string"}}, "required": []any{"who"}}
			if got := p.Describe().Tools[0].Parameters; !reflect.DeepEqual(got, want) {
				t.Errorf("parameters = %v", got)
			}
			res, err := call(t, p, newFakeEnv(), "greet", map[string]any{"who": "world"}, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]any{"text": "hello, world", "tool": "greet"}; !reflect.DeepEqual(res, want) {
				t.Errorf("result = %v, want %v", res, want)
			}
		})
	}
}
