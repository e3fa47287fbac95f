package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestRegisterDuringCallRefused: aios.registerTool or aios.provider
// called from a handler (a tool registered lazily, on first use) returned
// as if it had worked, but the host reads a provider's tools once, after
// its top-level code ran: the tool never existed and nothing said so. Such
// a call now throws naming what was called and that tools are declared at
// the top level, in both isolations; registrations by the top-level code
// (also from a promise it settles while loading) still count.
func TestRegisterDuringCallRefused(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "late.js", `
aios.registerTool({ name: 'lazy', parameters: {} }, () => { aios.registerTool({ name: 'later', parameters: {} }, () => 1); return 'ok'; });
aios.registerTool({ name: 'describe', parameters: {} }, () => { aios.provider({ id: 'org.test.late' }); return 'ok'; });
aios.registerTool({ name: 'timer', parameters: {} }, () => new Promise((resolve) => setTimeout(() => { aios.registerTool({ name: 't2' }, () => 1); resolve('ok'); }, 1)));
Promise.resolve().then(() => aios.registerTool({ name: 'fromPromise', parameters: {} }, () => 'ok'));
`)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			var names []string
			for _, d := range p.Describe().Tools {
				names = append(names, d.Name)
			}
			if strings.Join(names, " ") != "lazy describe timer fromPromise" {
				t.Errorf("tools %v", names)
			}
			env := newFakeEnv()
			do := func(tool string) (any, error) {
				c := &abi.ToolCall{ID: "c1", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
				env.call = c
				return p.Call(context.Background(), c, env)
			}
			for tool, want := range map[string]string{"lazy": "Error: aios.registerTool: tools and the provider are declared by the file's top-level code", "describe": "Error: aios.provider(...): tools and the provider are declared by the file's top-level code", "timer": "aios.registerTool: tools and the provider"} {
				got, err := do(tool)
				if err == nil {
					t.Errorf("%s: %v, want an error saying tools are declared at the top level", tool, got)
					continue
				}
				if te := wantCode(t, err, abi.ProviderError); !strings.Contains(te.Message, want) || !strings.Contains(te.Message, "(at late.js:") {
					t.Errorf("%s: %q, want %q and the line", tool, te.Message, want)
				}
			}
			if got, err := do("fromPromise"); err != nil || got != "ok" {
				t.Errorf("fromPromise: %v %v", got, err)
			}
		})
	}
}
