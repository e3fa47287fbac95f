package wasm

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// At debug level every message between the host and a guest is logged as
// a "wire frame", as worker processes' frames are: the ToolRegister, the
// ToolCall, a host call's request and answer, the ToolResult, each with
// its direction and its own format. (README listed this as not built.)
func TestGuestMessagesTraced(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			ptr, n := pk(g.seg(`{"tool":"other","params":{"q":1}}`))
			g.call = fmt.Sprintf("(local.set $a (call $call_tool %s %s))\n", ptr, n) + g.checkCodec('{')
			var logs testutil.SyncBuffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			p, err := e.load(t, Config{PoolSize: 1}, abi.Source{Path: buildWAT(t, g.wat()), Logger: logger})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			env := newFakeEnv(p, 3)
			env.tools = map[string]func(any) (any, error){"other": func(any) (any, error) { return "answer-7", nil }}
			if v, err := call(p, env, "t", map[string]any{"x": "call-arg"}, 5*time.Second); err != nil || v != "answer-7" {
				t.Fatalf("call: %v %v", v, err)
			}
			var frames []string
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, `msg="wire frame"`) {
					frames = append(frames, l)
				}
			}
			want := [][]string{
				{"dir=in", "format=json", `\"format\":1`},          // aios_register
				{"dir=out", "format=json", `call-arg`},             // the ToolCall
				{"dir=in", "format=json", `{\"tool\":\"other\"`},   // call_tool's request
				{"dir=out", "format=json", `answer-7`},             // its answer
				{"dir=in", "format=json", `{\"value\":\"answer-7`}, // the ToolResult
			}
			if len(frames) != len(want) {
				t.Fatalf("%d frames logged, want %d:\n%s", len(frames), len(want), strings.Join(frames, "\n"))
			}
			for i, w := range want {
				for _, s := range w {
					if !strings.Contains(frames[i], s) {
						t.Errorf("frame %d lacks %s: %s", i, s, frames[i])
					}
				}
			}
		})
	}
	// Not at debug level: nothing is traced (the tracer is nil).
	g := newEdgeGuest(edgeReg)
	g.call = fmt.Sprintf("(i64.const %d)", g.seg(`{"value":1}`))
	var logs testutil.SyncBuffer
	p, err := edgeEngines[0].load(t, Config{PoolSize: 1}, abi.Source{Path: buildWAT(t, g.wat()), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := call(p, newFakeEnv(p, 3), "t", map[string]any{}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "wire frame") {
		t.Errorf("frames traced at info level:\n%s", logs.String())
	}
}
