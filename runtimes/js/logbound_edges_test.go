package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestLogValueWalkBounded: a value logged is walked only as far as its log
// line shows it. One nested 100 000 deep shows "[Object]" past the depth a
// line walks (it was walked to the bottom), and an array of 100 000
// objects stops being written once the line's bound is reached, ending in
// "…" (it was written whole, then cut by the log). What a line shows of a
// plain value is as before: JSON, with "[Circular]" where an object holds
// itself.
func TestLogValueWalkBounded(t *testing.T) {
	rt := newRuntime(t, Options{})
	p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "lb.js", `aios.provider({ id: 'org.test.lb' });
aios.registerTool({ name: 'lb', parameters: {} }, () => {
  let d = { end: 1 };
  for (let i = 0; i < 100000; i++) d = { x: d };
  console.log('deep', d);
  const big = [];
  for (let i = 0; i < 100000; i++) big.push({ i });
  console.log('big', big);
  const o = { a: [1, 'two', null, undefined, () => 1], n: new Number(3), s: new String('x'), when: new Date(0), inf: Infinity };
  o.self = o;
  console.log('plain', o);
  return 1;
});
`)}, abi.RuntimeJS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	env := newFakeEnv()
	c := &abi.ToolCall{ID: "c1", Tool: "lb", Params: map[string]any{}, Deadline: time.Now().Add(60 * time.Second)}
	env.call = c
	if got, err := p.Call(context.Background(), c, env); err != nil || got != int64(1) {
		t.Fatalf("call: %v %v", got, err)
	}
	env.mu.Lock()
	logs := append([]string(nil), env.logs...)
	env.mu.Unlock()
	var deep, big, plain string
	for _, l := range logs {
		switch {
		case strings.HasPrefix(l, "INFO deep "):
			deep = l
		case strings.HasPrefix(l, "INFO big "):
			big = l
		case strings.HasPrefix(l, "INFO plain "):
			plain = l
		}
	}
	if want := strings.Repeat(`{"x":`, 64) + `"[Object]"` + strings.Repeat("}", 64); deep != "INFO deep "+want {
		t.Errorf("deep value logged as %.200q…; want it shown 64 levels down, then \"[Object]\"", deep)
	}
	if !strings.HasPrefix(big, `INFO big [{"i":0},{"i":1},`) || !strings.HasSuffix(big, "…") || strings.Contains(big, "more bytes cut") || len(big) > maxLogLine {
		t.Errorf("big array logged as %d bytes ending %q; want its start, cut near %d bytes with \"…\"", len(big), big[max(0, len(big)-40):], maxLogLine)
	}
	if want := `INFO plain {"a":[1,"two",null,null,"[Function: anonymous]"],"n":3,"s":"x","when":"1970-01-01T00:00:00.000Z","inf":null,"self":"[Circular]"}`; plain != want {
		t.Errorf("plain value logged as\n%s\nwant\n%s", plain, want)
	}
}
