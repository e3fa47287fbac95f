package js

import (
	"testing"
	"time"
)

// TestTimerFunctionsNamed: setTimeout and clearTimeout, the two host
// functions a provider holds as they are, carried the Go names of the
// host's methods: setTimeout.name was
// "github.com/aios-host/aios-host/runtimes/js.(*worker).nativeSetTimeout-fm",
// and String(setTimeout) and console.log showed it. They are named
// setTimeout and clearTimeout, as in node and browsers.
func TestTimerFunctionsNamed(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "names.js", `
aios.registerTool({ name: 'names', parameters: {} }, () => [setTimeout.name, clearTimeout.name, String(setTimeout)]);
`)
	got, err := call(t, p, newFakeEnv(), "names", map[string]any{}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := got.([]any)
	if len(a) != 3 || a[0] != "setTimeout" || a[1] != "clearTimeout" || a[2] != "function setTimeout() { [native code] }" {
		t.Fatalf("got %#v, want setTimeout, clearTimeout and function setTimeout() { [native code] }", got)
	}
}
