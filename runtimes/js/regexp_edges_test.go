package js

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestRegExpPropertyEscapeRefused: goja has no Unicode property
// escapes, and /\p{L}+/u matched the text "p{L}": a TS author's
// /^\p{L}+$/u.test(name) was false for every name, without a word. Such a
// regular expression (a literal, which esbuild turns into new RegExp, or
// built with the constructor, or from a RegExp given the u flag) is a
// SyntaxError naming the escape and what to use; other regular
// expressions, \\p{ (an escaped backslash) and \p{ without u are as before.
func TestRegExpPropertyEscapeRefused(t *testing.T) {
	const src = `
aios.registerTool({ name: 'literal' }, (p) => /^\p{L}+$/u.test(p.s));
aios.registerTool({ name: 'ctor' }, () => new RegExp('[\\P{Lu}]', 'u').test('a'));
aios.registerTool({ name: 'reflags' }, () => new RegExp(/\p{Script=Greek}/, 'u').test('p{Script=Greek}'));
aios.registerTool({ name: 'fine' }, () => [
  /\\p{L}/u.test('\\p{L}'), /\p{L}/.test('p{L}'), 'a,b'.split(/,/u).length === 2,
  'aXb'.replace(new RegExp('x', 'giu'), '-') === 'a-b', /x/ instanceof RegExp, /x/.constructor === RegExp,
  Object.getPrototypeOf(/x/) === RegExp.prototype, RegExp('a').test('a'),
  (() => { class R extends RegExp {} const r = new R('a', 'g'); return r instanceof R && r.test('a'); })(),
  [...'a1b2'.matchAll(/\d/gu)].length === 2, /(?<y>\d{4})/u.exec('in 2024').groups.y === '2024',
]);
`
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "re.ts", src)
	for _, tc := range []struct{ tool, esc, at string }{
		{"literal", `\p{L}`, "re.ts:2:"}, {"ctor", `\P{Lu}`, "re.ts:3:"}, {"reflags", `\p{Script=Greek}`, "re.ts:4:"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			_, err := call(t, p, newFakeEnv(), tc.tool, map[string]any{"s": "é"}, 5*time.Second)
			te := wantCode(t, err, abi.ProviderError)
			for _, w := range []string{"SyntaxError: Invalid regular expression", "Unicode property escape " + tc.esc + " is not supported", "use a character class", "(at " + tc.at} {
				if !strings.Contains(te.Message, w) {
					t.Errorf("message %q lacks %q", te.Message, w)
				}
			}
		})
	}
	got, err := call(t, p, newFakeEnv(), "fine", map[string]any{}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{true, true, true, true, true, true, true, true, true, true, true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fine = %v, want all true", got)
	}
}
