package js

import (
	"context"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A full JSON Schema written without "type" ({properties, required}: valid
// JSON Schema, and what docs/python.md calls a full schema) was taken as
// the seed's shorthand, its keywords as parameter names: `properties`
// became a required parameter called "properties" and `required: [...]`
// failed the load ("parameters.required must be a JSON Schema object").
// The Python SDK uses such a schema as given (adding type object), so the
// same declared schema gave two different tools.
func TestSchemaWithoutTypeIsFull(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "full.js", `
aios.provider({ id: 'org.probe.full' });
aios.registerTool({ name: 'props', parameters: { properties: { x: { type: 'string' } }, required: ['x'] } }, (p) => p);
aios.registerTool({ name: 'propsonly', parameters: { properties: { x: { type: 'string' } }, additionalProperties: false } }, (p) => p);
aios.registerTool({ name: 'short', parameters: { x: { type: 'string' }, n: { type: 'integer', default: 1 } } }, (p) => p);
aios.registerTool({ name: 'dollar', parameters: { $schema: 'https://json-schema.org/draft/2020-12/schema', required: ['a'] } }, (p) => p);
`)
	want := map[string]map[string]any{
		"props":     {"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}, "required": []any{"x"}},
		"propsonly": {"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}, "additionalProperties": false},
		"dollar":    {"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema", "required": []any{"a"}},
		"short":     {"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}, "n": map[string]any{"type": "integer", "default": int64(1)}}, "required": []any{"x"}},
	}
	for _, tl := range p.Describe().Tools {
		if w, ok := want[tl.Name]; ok && !reflect.DeepEqual(tl.Parameters, w) {
			t.Errorf("%s: parameters %#v\nwant %#v", tl.Name, tl.Parameters, w)
		}
	}
}

// @tool and @Agent written without parentheses (as Python's bare @tool
// works) loaded as "the provider registers no tools", naming neither
// decorator: the bare decorator returned a function that replaced the
// method or class. And @tool() / @Agent() (no options: the name defaults
// to the method's, the id to local.<file>) work at run time but were
// refused by aios-sdk.d.ts ("Expected 1 arguments, but got 0").
func TestBareDecorators(t *testing.T) {
	rt := newRuntime(t, Options{})
	for _, mode := range []string{"standard", "experimental"} {
		t.Run(mode, func(t *testing.T) {
			p := loadSource(t, rt, "bare.ts", `// @aios-decorators `+mode+`
import { Agent, tool } from 'aios-sdk';

@Agent
class Bare {
  greeting = 'hi';
  @tool
  hello(params: { name: string }) { return { msg: this.greeting + ' ' + params.name }; }
}
`)
			q := loadSource(t, rt, "no_opts.ts", `// @aios-decorators `+mode+`
import { Agent, tool } from 'aios-sdk';

@Agent()
class NoOpts {
  @tool()
  bye(params: { name: string }) { return { msg: 'bye ' + params.name }; }
}
`)
			for _, c := range []struct {
				p          *Provider
				tool, want string
			}{{p, "hello", "hi ann"}, {q, "bye", "bye ann"}} {
				if tools := c.p.Describe().Tools; len(tools) != 1 || tools[0].Name != c.tool {
					t.Fatalf("tools %+v, want %s alone", tools, c.tool)
				}
				v, err := call(t, c.p, newFakeEnv(), c.tool, map[string]any{"name": "ann"}, 5*time.Second)
				if err != nil || !reflect.DeepEqual(v, map[string]any{"msg": c.want}) {
					t.Fatalf("%s: %#v %v", c.tool, v, err)
				}
			}
		})
	}
}

// What the runtime accepts, aios-sdk.d.ts accepts: bare @Agent / @tool and
// @Agent() / @tool() in both decorator modes; a misspelled option is still
// a type error.
func TestTypeCheckBareDecorators(t *testing.T) {
	if testing.Short() {
		t.Skip("tsc takes seconds; skipped with -short")
	}
	root, bin := tsc(t)
	good := writeSource(t, "good.ts", `import { Agent, tool } from 'aios-sdk';
@Agent
class Bare {
  @tool
  hello(params: { name: string }) { return { hi: params.name }; }
}
@Agent()
class NoOpts {
  @tool()
  bye(params: { name: string }, ctx: AgentContext) { return { hi: params.name, id: ctx.call.id }; }
}
@Agent({ id: 'org.x.y' })
class WithOpts {
  @tool({ name: 'z', parameters: { a: { type: 'string' } } })
  async z(params: { a: string }) { return params.a; }
}
`)
	bad := writeSource(t, "bad.ts", `import { Agent, tool } from 'aios-sdk';
@Agent({ idd: 'org.x.y' })
class WithOpts {
  @tool({ nmae: 'z' })
  async z(params: { a: string }) { return params.a; }
}
`)
	for _, flags := range [][]string{nil, {"--experimentalDecorators"}} {
		args := append([]string{"--noEmit", "--strict", "--target", "ES2017", "--lib", "ES2020", "--typeRoots", filepath.Join(root, "sdk", "js", "no-types")}, flags...)
		out, err := exec.Command(bin, append(args, filepath.Join(root, "sdk", "js", "aios-sdk.d.ts"), good)...).CombinedOutput()
		if err != nil {
			t.Errorf("tsc %v refused valid decorators: %v\n%s", flags, err, out)
		}
		out, err = exec.Command(bin, append(args, filepath.Join(root, "sdk", "js", "aios-sdk.d.ts"), bad)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "bad.ts(2,") || !strings.Contains(string(out), "bad.ts(4,") {
			t.Errorf("tsc %v did not refuse misspelled options: %v\n%s", flags, err, out)
		}
	}
}

// returns written in the shorthand parameters take ({summary: {type:
// 'string'}}) was used as a JSON Schema whose only keyword, "summary", is
// unknown: any result passed. The Python SDK turns the same returns into
// {type: object, properties, required}, so the host refused a Python
// tool's {summary: 5} and passed the JS tool's.
func TestReturnsShorthand(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "ret.js", `
aios.provider({ id: 'org.probe.ret' });
aios.registerTool({ name: 'short', returns: { summary: { type: 'string' }, n: { type: 'integer', optional: true } } }, () => ({ summary: 'x' }));
aios.registerTool({ name: 'full', returns: { type: 'string' } }, () => 'x');
aios.registerTool({ name: 'none' }, () => 'x');
`)
	want := map[string]map[string]any{
		"short": {"type": "object", "properties": map[string]any{"summary": map[string]any{"type": "string"}, "n": map[string]any{"type": "integer"}}, "required": []any{"summary"}},
		"full":  {"type": "string"},
		"none":  nil,
	}
	for _, tl := range p.Describe().Tools {
		w := want[tl.Name]
		if (w == nil) != (tl.Returns == nil) || (w != nil && !reflect.DeepEqual(tl.Returns, w)) {
			t.Errorf("%s: returns %#v\nwant %#v", tl.Name, tl.Returns, w)
		}
	}
	_, err := rt.load(t.Context(), abi.Source{Path: writeSource(t, "bad.js", `aios.registerTool({ name: 'b', returns: { summary: 5 } }, () => 1);`)}, "js")
	if err == nil || !strings.Contains(err.Error(), "returns.summary must be a JSON Schema object") {
		t.Fatalf("got %v, want an error naming returns.summary", err)
	}
}

// docs/js.md: a tool definition may have the members aios-sdk.d.ts
// declares "and their snake_case spellings" (capability_required, the
// Python SDK's spelling, works at run time), but the .d.ts declared only
// the camelCase ones, so tsc refused code the runtime serves.
func TestTypeCheckSnakeCaseMembers(t *testing.T) {
	if testing.Short() {
		t.Skip("tsc takes seconds; skipped with -short")
	}
	root, bin := tsc(t)
	src := `import { registerTool, Capability } from 'aios-sdk';
registerTool({ name: 'a', capability_required: Capability.ReadSpace('docs'), latency_class: 'fast',
  permission_level: 'low', mcp_exportable: true }, () => 1);
`
	good := writeSource(t, "snake.ts", src)
	out, err := exec.Command(bin, "--noEmit", "--strict", "--target", "ES2017", "--lib", "ES2020", "--typeRoots", filepath.Join(root, "sdk", "js", "no-types"),
		filepath.Join(root, "sdk", "js", "aios-sdk.d.ts"), good).CombinedOutput()
	if err != nil {
		t.Fatalf("tsc refused the snake_case members the runtime takes: %v\n%s", err, out)
	}
	// And the runtime does take them.
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "snake.ts", src)
	d := p.Describe().Tools[0]
	if len(d.CapabilityRequired) != 1 || d.LatencyClass != "fast" || d.PermissionLevel != "low" || !d.MCPExportable {
		t.Fatalf("%+v", d)
	}
}

// A whole schema without a type made of keywords whose values are not
// schemas ({enum: [...]}, {anyOf: [...]}, {$ref: ...}) is used as given,
// as by the Python, native and Go guest SDKs (p24's leftover: it was read
// as the shorthand and refused at load). A property named like a keyword,
// whose value is a schema, is still the shorthand.
func TestKeywordSchemasAsGiven(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "kw.js", `
aios.provider({ id: 'org.probe.kw' });
aios.registerTool({ name: 'en', returns: { enum: ['a', 'b'] } }, () => 'a');
aios.registerTool({ name: 'any', parameters: { anyOf: [{ type: 'object', required: ['x'] }, { type: 'object', required: ['y'] }] } }, (p) => p);
aios.registerTool({ name: 'ref', parameters: { $ref: '#/$defs/p', $defs: { p: { type: 'object' } } } }, (p) => p);
aios.registerTool({ name: 'short', parameters: { enum: { type: 'string' } } }, (p) => p);
`)
	want := map[string][2]map[string]any{
		"en":    {{"type": "object"}, {"enum": []any{"a", "b"}}},
		"any":   {{"type": "object", "anyOf": []any{map[string]any{"type": "object", "required": []any{"x"}}, map[string]any{"type": "object", "required": []any{"y"}}}}, nil},
		"ref":   {{"type": "object", "$ref": "#/$defs/p", "$defs": map[string]any{"p": map[string]any{"type": "object"}}}, nil},
		"short": {{"type": "object", "properties": map[string]any{"enum": map[string]any{"type": "string"}}, "required": []any{"enum"}}, nil},
	}
	seen := 0
	for _, tl := range p.Describe().Tools {
		w, ok := want[tl.Name]
		if !ok {
			continue
		}
		seen++
		if !reflect.DeepEqual(tl.Parameters, w[0]) || w[1] != nil && !reflect.DeepEqual(tl.Returns, w[1]) {
			t.Errorf("%s: parameters %#v returns %#v\nwant %#v %#v", tl.Name, tl.Parameters, tl.Returns, w[0], w[1])
		}
	}
	if seen != len(want) {
		t.Fatalf("%d of %d tools registered", seen, len(want))
	}
}

// Describing the provider twice in one file (two aios.provider calls, two
// @Agent classes, or one of each) was merged, the first id, name and
// version winning silently and the capabilities added up, while Python
// refuses it at load and the Go guest SDK panics: it is a load error here
// too, naming both descriptions.
func TestProviderDescribedTwice(t *testing.T) {
	rt := newRuntime(t, Options{})
	for _, c := range []struct{ name, src, want string }{
		{"provider_twice.js", `aios.provider({id: 'org.a'});
aios.provider({id: 'org.b'});
aios.registerTool({name: 't'}, () => 1);
`, "aios.provider(...): the provider is already described by aios.provider(...)"},
		{"two_agents.ts", `import { Agent, tool } from 'aios-sdk';
@Agent({id: 'org.a'})
class A { @tool() a() { return 1; } }
@Agent({id: 'org.b'})
class B { @tool() b() { return 2; } }
`, "@Agent class B: the provider is already described by @Agent class A"},
		{"both.ts", `import { Agent, tool, provider } from 'aios-sdk';
provider({id: 'org.a', capabilities: ['ReadSpace(x)']});
@Agent
class B { @tool() b() { return 2; } }
`, "@Agent class B: the provider is already described by aios.provider(...)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeSource(t, c.name, c.src)
			p, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
			if err == nil {
				_ = p.Close()
				t.Fatalf("loaded: %+v", p.Describe().Provider)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "a file describes its provider once") {
				t.Fatalf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
}
