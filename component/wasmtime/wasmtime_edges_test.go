//go:build wasmtime

package wasmtime

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
)

// Close while calls run (docs/components.md): idle instances go at once,
// busy ones when their call ends, and a call that comes after is
// Unavailable. A call that had passed get's closed check and was
// instantiating when the last busy instance released the provider used
// the freed component and linker (a use after free in wasmtime: the
// process died).
func TestComponentCloseWhileCalling(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1})
	for round := range 20 {
		p, err := l.Load(context.Background(), abi.Source{Path: sample(t, "hello")})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					_, err := callP(p, &fakeEnv{}, "add", map[string]any{"a": int64(1), "b": int64(2)}, 5*time.Second)
					if err != nil && abi.CodeOf(err) != abi.Unavailable {
						t.Errorf("round %d: call during Close: %v", round, err)
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(5+round) * time.Millisecond)
		_ = p.Close()
		time.Sleep(5 * time.Millisecond)
		close(stop)
		wg.Wait()
		if n := p.(*Provider).Instances(); n != 0 {
			t.Fatalf("round %d: %d instances left open after Close", round, n)
		}
	}
}

// A component's stdout reaches the host log (docs/components.md, "WASI 0.2
// subset": one record per line, stream=stdout) on wasmtime as on wazero.
func TestComponentStdoutLogged(t *testing.T) {
	l := newLoader(t, Options{AllowFlagResults: true}) // (the sample sets no bit past its flags' labels)
	p := loadWT(t, l, "kitchen")
	env := &fakeEnv{}
	item := map[string]any{"name": "widget", "tags": []any{"a", "b", "c"}, "color": "blue",
		"perms": []any{"read", "exec"}, "shape": map[string]any{"tag": "rect", "val": []any{1.5, 2.0}}, "note": nil, "count": int64(3)}
	if _, err := callP(p, env, "transform", map[string]any{"item": item}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	if !strings.Contains(strings.Join(env.logs, ""), "transform widget: 3 tags") {
		t.Fatalf("the component's stdout did not reach the log: %q", env.logs)
	}
}

// slowStartComponent is testListComponent (run: func() -> list<...>, here
// returning no element) whose core module has a start function counting
// to n (seconds of work for n near 2^31).
func slowStartComponent(n int64) []byte {
	body := []byte{0x00, 0x41, 0x00, 0x41, 0x10, 0x36, 0x02, 0x00, 0x41, 0x04, 0x41, 0x00, 0x36, 0x02, 0x00, 0x41, 0x00, 0x0b}
	spin := []byte{0x01, 0x01, 0x7f, 0x03, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6a, 0x22, 0x00, 0x41}
	spin = append(spin, sleb(n)...)
	spin = append(spin, 0x49, 0x0d, 0x00, 0x0b, 0x0b)
	core := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	core = append(core, section(1, []byte{2, 0x60, 0, 1, 0x7f, 0x60, 0, 0})...)
	core = append(core, section(3, []byte{2, 0, 1})...)
	core = append(core, section(5, []byte{1, 0x00, 1})...)
	core = append(core, section(7, pcat([]byte{2}, pstr("f"), []byte{0x00, 0x00}, pstr("memory"), []byte{0x02, 0x00}))...)
	core = append(core, section(8, []byte{1})...)
	core = append(core, section(10, pcat([]byte{2}, uleb(uint64(len(body))), body, uleb(uint64(len(spin))), spin))...)
	return pcat([]byte{0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00},
		psec(7, []byte{0x6f, 0x04, 0x7d, 0x7d, 0x7d, 0x7d}, []byte{0x70, 0x00}, []byte{0x40, 0x00, 0x00, 0x01}),
		psec(1, core),
		psec(2, []byte{0x00, 0x00, 0x00}),
		psec(6, pcat([]byte{0x00, 0x00, 0x01, 0x00}, pstr("f")), pcat([]byte{0x00, 0x02, 0x01, 0x00}, pstr("memory"))),
		psec(8, []byte{0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x02}),
		psec(11, pcat([]byte{0x00}, pstr("run"), []byte{0x01, 0x00, 0x00})),
	)
}

// "Start functions of a new instance run under the call's deadline"
// (docs/components.md, Calls), as on wazero: on wasmtime they ran under a
// fixed 10 s whatever the call's deadline, so a call that needed a new
// instance of a component with slow start code held its caller (and a
// CPU) seconds past its deadline.
func TestComponentStartUnderCallDeadline(t *testing.T) {
	l := newLoader(t, Options{PoolSize: 1})
	start := time.Now()
	p, err := l.LoadBytes(context.Background(), abi.Source{Path: "slowstart.wasm"}, slowStartComponent(2_000_000_000))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	startCost := time.Since(start)
	t.Logf("load (start code once) took %v", startCost)
	if startCost < 600*time.Millisecond {
		t.Skipf("start code took only %v: too fast to tell", startCost)
	}
	wp := p.(*Provider)
	wp.release(<-wp.pool) // the next call needs a new instance
	start = time.Now()
	_, err = callP(p, &fakeEnv{}, "run", map[string]any{}, 100*time.Millisecond)
	took := time.Since(start)
	if abi.CodeOf(err) != abi.Timeout || took > startCost/2 {
		t.Fatalf("call with a 100 ms deadline needing a new instance: %v after %v (start code takes %v), want Timeout at the deadline", err, took, startCost)
	}
	t.Logf("%v after %v", err, took)
	if !strings.Contains(err.Error(), "new instance") {
		t.Errorf("Timeout %q does not say the new instance was starting", err)
	}
}

// A trap names its reason on wasmtime as on wazero ("tool crash: wasm
// error: unreachable"): the message was the first line of wasmtime's
// error, "error while executing at wasm backtrace:", which names none.
func TestComponentTrapReason(t *testing.T) {
	f := sample(t, "conformance")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	pa, err := component.New(context.Background(), b, f, "", component.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pa.Close()
	pb := loadWT(t, newLoader(t, Options{}), "conformance")
	for _, p := range []abi.Provider{pa, pb} {
		_, err := callP(p, &fakeEnv{}, "crash", map[string]any{}, 5*time.Second)
		if want := "ProviderCrashed: tool crash: wasm error: unreachable"; err == nil || err.Error() != want {
			t.Errorf("%T: crash: %v, want %q", p, err, want)
		}
	}
}

func TestComponentTrapWords(t *testing.T) {
	for msg, want := range map[string]string{
		"error while executing at wasm backtrace:\n    0:    0xbaf - <unknown>!crash\n\nCaused by:\n    wasm trap: wasm `unreachable` instruction executed\n\nStack backtrace:\n   0: <unknown>": "wasm error: unreachable",
		"error while executing at wasm backtrace:\n    0: x\n\nCaused by:\n    wasm trap: call stack exhausted":                                                                                  "stack overflow",
		"error while executing at wasm backtrace:\n    0: x\n\nCaused by:\n    0: something else\n    1: deeper":                                                                                 "something else",
		"cannot enter component instance": "cannot enter component instance",
	} {
		if got := trapReason(msg); got != want {
			t.Errorf("trapReason(%q) = %q, want %q", msg, got, want)
		}
	}
}
