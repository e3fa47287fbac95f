package js

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestConsoleNodeMethods: console had log, info, debug, warn and error
// only, so a tool written for node or a browser that called console.dir,
// console.assert, console.time or console.count failed the whole call
// with "TypeError: Object has no member 'dir'". Those members now write
// lines to the host log as node's do (without their formatting options),
// in both isolations.
func TestConsoleNodeMethods(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "console.js", `aios.provider({ id: 'org.test.console' });
aios.registerTool({ name: 'all', parameters: {} }, () => {
  console.dir({ a: 1 }, { depth: 0 });
  console.table([{ b: 2 }]);
  console.assert(true, 'not written');
  console.assert(1 === 2, 'one is not', 2);
  console.time('t');
  console.timeLog('t', 'half');
  console.timeEnd('t');
  console.timeEnd('t');
  console.count(); console.count(); console.count('c'); console.countReset(); console.count();
  console.group('grouped'); console.groupCollapsed(); console.groupEnd();
  console.dirxml('x');
  console.trace('here');
  return 1;
});
`)}, abi.RuntimeJS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			c := &abi.ToolCall{ID: "c1", Tool: "all", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
			env.call = c
			if got, err := p.Call(context.Background(), c, env); err != nil || got != int64(1) {
				t.Fatalf("call: %v %v", got, err)
			}
			env.mu.Lock()
			logs := strings.Join(env.logs, "\n")
			env.mu.Unlock()
			for _, want := range []string{
				`INFO {"a":1}`, `INFO [{"b":2}]`, "ERROR Assertion failed: one is not 2",
				"INFO default: 1", "INFO default: 2", "INFO c: 1", "INFO grouped", "INFO x", "INFO Trace: here\n\tat console.js:14:",
				`WARN console: no timer "t"`,
			} {
				if !strings.Contains(logs, want) {
					t.Errorf("logs lack %q:\n%s", want, logs)
				}
			}
			if strings.Count(logs, "INFO default: 1") != 2 || strings.Contains(logs, "not written") || strings.Contains(logs, "prelude") {
				t.Errorf("logs:\n%s\nwant default: 1 twice (countReset), no passing assertion, no prelude frame", logs)
			}
			if !regexp.MustCompile(`INFO t: \d+ms half\nINFO t: \d+ms\n`).MatchString(logs) {
				t.Errorf("logs lack the timer lines:\n%s", logs)
			}
		})
	}
}

// TestConsoleFormatSpecifiers: console.log('%s=%d', 'a', 5) logged
// "%s=%d a 5": the format specifiers of node's and browsers' console were
// not substituted. They are now (%s %d %i %f %j %o %O %c %%; one without
// an argument left as written, arguments past the format appended);
// ctx.log joins its arguments as they are, as Python's does.
func TestConsoleFormatSpecifiers(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "format.js", `aios.provider({ id: 'org.test.format' });
aios.registerTool({ name: 'f', parameters: {} }, (p, ctx) => {
  console.log('%s=%d %i %f %j %o %O %c%% 100%', 'a', '5', '42.9px', '1.5e1', [1], { x: 1 }, null, 'color: red', 'extra', 7n);
  console.error('%s and %s', 'one');
  console.warn('%d', 2n);
  console.info('no format', '%s');
  console.log(5, '%s', 'x');
  console.assert(false, 'want %d', 3);
  ctx.log('%s stays', 'as is');
  return 1;
});
`)
	env := newFakeEnv()
	if _, err := call(t, p, env, "f", map[string]any{}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	env.mu.Lock()
	logs := strings.Join(env.logs, "\n")
	env.mu.Unlock()
	want := strings.Join([]string{
		`INFO a=5 42 15 [1] {"x":1} null % 100% extra 7n`,
		`ERROR one and %s`,
		`WARN 2n`,
		`INFO no format %s`,
		`INFO 5 %s x`,
		`ERROR Assertion failed: want 3`,
		`INFO %s stays as is`,
	}, "\n")
	if logs != want {
		t.Errorf("logs:\n%s\nwant:\n%s", logs, want)
	}
}
