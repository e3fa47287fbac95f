package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// patchedCompilersProvider patches what limits.js's Function replacement
// used to convert its arguments with (Array.prototype.map) and then hands the Function
// constructor a source longer than the sandbox compiles at run time, as an
// object whose toString returns it. A flat source is used here: a nested
// one of that length ('['.repeat(600000)) is a fatal stack overflow of the
// whole process in goja's parser, which is what the size check is for.
const patchedCompilersProvider = `
const long = 'return 1; //' + 'x'.repeat(300000);
const arg = { toString() { return long; } };
aios.registerTool({ name: 'patchedMap', parameters: { type: 'object' } }, () => {
  const map = Array.prototype.map;
  Array.prototype.map = function () { return this; };
  try { return new Function(arg)(); } finally { Array.prototype.map = map; }
});
aios.registerTool({ name: 'later', parameters: { type: 'object' } }, () => {
  // a later call of the same runtime: the patch of an earlier call stays
  Array.prototype.map = function () { return this; };
  return 0;
});
aios.registerTool({ name: 'afterPatch', parameters: { type: 'object' } }, () => new Function(arg)());
`

// TestProbePatchedBuiltinsKeepSourceLimit: limits.js's replacement of the
// Function constructors converted their arguments with args.map(...), a
// method of Array.prototype the provider can replace. A provider that
// replaced it (in the same call, or in an earlier call of the same pooled
// runtime) had its arguments reach the original constructor unconverted:
// the size check counts strings only, so an object whose toString returned
// any source passed it, and a deeply nested one ends the host process in
// goja's parser. The conversion is now done by the check itself, in Go,
// and the original compiles the strings the check counted.
func TestProbePatchedBuiltinsKeepSourceLimit(t *testing.T) {
	rt := newRuntime(t, Options{MemoryBudget: 64 << 20, PoolSize: 1})
	p := loadSource(t, rt, "patched.js", patchedCompilersProvider)
	env := newFakeEnv()
	for _, name := range []string{"patchedMap", "later", "afterPatch"} {
		v, err := call(t, p, env, name, map[string]any{}, 20*time.Second)
		switch name {
		case "later":
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: the long source compiled (result %v), want the RangeError of the source size", name, v)
			continue
		}
		te := wantCode(t, err, abi.ProviderError)
		if !strings.Contains(te.Message, "RangeError") || !strings.Contains(te.Message, "characters of source: the sandbox compiles at most 262144 at run time") {
			t.Errorf("%s: message %q: want the RangeError of the source size", name, te.Message)
		}
	}
}
