package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestStringSpreadSized: spreading a string ([...s]) or Array.from(s)
// builds an array of one element per character in one native loop that
// the interrupt does not reach, and the string's iterator was not sized
// (an array's is): under a 256 MiB budget a string the budget allows
// became an array of gigabytes before the heap guard could stop it (a 20
// million character string: the call "did not stop within 250ms" and the
// runtime was abandoned while it built on; a 100 million one took the
// in-process host's memory). The string iterator is sized now, as the
// array one is: a RangeError naming the budget at the provider's line,
// before anything is built; small strings spread as before.
func TestStringSpreadSized(t *testing.T) {
	rt := newRuntime(t, Options{MemoryBudget: 16 << 20}) // 1 Mi elements of 16 bytes
	p := loadSource(t, rt, "strspread.ts", `
aios.provider({ id: 'org.test.strspread' });
const big = () => 'x'.repeat(2_000_000);
aios.registerTool({ name: 'spread', parameters: { type: 'object' } }, () => [...big()].length);
aios.registerTool({ name: 'from', parameters: { type: 'object' } }, () => Array.from(big()).length);
aios.registerTool({ name: 'boxed', parameters: { type: 'object' } }, () => [...new String(big())].length);
aios.registerTool({ name: 'ok', parameters: { type: 'object' } }, () => ({
  spread: [...'héllo👍'], from: Array.from('ab'), loop: (() => { let n = 0; for (const c of 'abc') n++; return n; })(),
}));`)
	env := newFakeEnv()
	for _, name := range []string{"spread", "from", "boxed"} {
		_, err := call(t, p, env, name, map[string]any{}, 20*time.Second)
		te := wantCode(t, err, abi.ProviderError)
		if !strings.Contains(te.Message, "RangeError") || !strings.Contains(te.Message, "memory budget (16 MiB)") || !strings.Contains(te.Message, "(at strspread.ts:") {
			t.Errorf("%s: %q; want a RangeError naming the 16 MiB budget at the provider's line", name, te.Message)
		}
	}
	v, err := call(t, p, env, "ok", map[string]any{}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, v), `{"from":["a","b"],"loop":3,"spread":["h","é","l","l","o","👍"]}`; got != want {
		t.Fatalf("small strings: got %s, want %s", got, want)
	}
}
