package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/dop251/goja"
)

// TestReplaceResultSized: String.prototype.replace and replaceAll (with a
// string or a RegExp) build their result in one native loop the interrupt
// does not reach, and a replacement pattern multiplies its input: "$'"
// (the text after each match) turned a string of 20 000 characters into
// one of 200 million, and one of 100 000 into 5 billion, an allocation
// that ends the host process; the heap guard could only abandon the
// runtime, which went on allocating. Such a call is a RangeError naming
// the budget, before anything is built, and ordinary replacements are
// unchanged.
func TestReplaceResultSized(t *testing.T) {
	src := `aios.provider({ id: 'org.test.replace' });
const big = (n: number) => 'x'.repeat(n);
aios.registerTool({ name: 'after', parameters: { type: 'object' } }, (p: any) => big(p.n).replaceAll('x', "$'").length);
aios.registerTool({ name: 'before', parameters: { type: 'object' } }, (p: any) => big(p.n).replaceAll('x', '$` + "`" + `').length);
aios.registerTool({ name: 'regexAfter', parameters: { type: 'object' } }, (p: any) => big(p.n).replace(/x/g, "$'").length);
aios.registerTool({ name: 'regexAll', parameters: { type: 'object' } }, (p: any) => big(p.n).replaceAll(/(x)/g, '$1$&$1'.repeat(1000)).length);
aios.registerTool({ name: 'long', parameters: { type: 'object' } }, (p: any) => big(p.n).replaceAll('x', 'y'.repeat(5000)).length);
aios.registerTool({ name: 'ok', parameters: { type: 'object' } }, () => JSON.stringify(` + replaceCases + `));`
	rt := newRuntime(t, Options{MemoryBudget: 64 << 20})
	p := loadSource(t, rt, "replace.ts", src)
	env := newFakeEnv()
	for _, c := range []struct {
		tool string
		n    int
	}{{"after", 20000}, {"before", 20000}, {"regexAfter", 20000}, {"regexAll", 20000}, {"long", 20000}} {
		t.Run(c.tool, func(t *testing.T) {
			_, err := call(t, p, env, c.tool, map[string]any{"n": c.n}, time.Minute)
			te := wantCode(t, err, abi.ProviderError)
			if !strings.Contains(te.Message, "RangeError") || !strings.Contains(te.Message, "memory budget (64 MiB)") ||
				!strings.Contains(te.Message, "(at replace.ts:") {
				t.Errorf("message %q: want a RangeError naming the 64 MiB budget, at the provider's line", te.Message)
			}
		})
	}
	res, err := call(t, p, env, "ok", map[string]any{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// The same replacements in a goja runtime without the limits.
	want, err := goja.New().RunString("const big = (n) => 'x'.repeat(n); JSON.stringify(" + replaceCases + ")")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.(string); got != want.String() {
		t.Fatalf("replacements changed:\n got %s\nwant %s", got, want)
	}
}

// replaceCases are replacements within the budget, some large enough for
// the check to count their result (a "$" pattern on thousands of
// characters: "$'" on 6 000, whose quick bound of 36 million characters
// passes the 64 MiB budget's 33.5 million, makes 18 million; on 7 000
// its 24.5 million held the heap near the budget, and with the package's
// other tests running the guard discarded the runtime), with captures, named groups, literal "$" forms and a
// sticky RegExp whose lastIndex the count must leave as it was.
const replaceCases = `[
  'a-b-c'.replace('-', '+'), 'a-b-c'.replaceAll('-', "[$&$$$'$` + "`" + `]"), 'a1b22'.replace(/(\d)(\d)?/g, '<$2$1$3$<n>>'),
  'ab'.replace(/(?<n>a)/, '[$<n>$<m>$<n]'), big(6000).replaceAll('x', "$'").length, 'aaa'.replace(/a/gy, '$&$&'),
  big(100000).replace(/y/g, "$'".repeat(10000)).length, big(3000).replace(/x/g, () => 'yy').length,
  big(4000).replace(/(?<n>x)/g, "$<n>$1$'$&$0$10$01").length, 'x'.replace('x', {toString: () => "$'$&"}), 'x1'.replace('x', 5), String.prototype.replace.call(12, 1, 3),
  (() => { const r = /x/y; r.lastIndex = 1; const n = big(3000).replace(r, "$'".repeat(1000)).length; return [n, r.lastIndex]; })()]`
