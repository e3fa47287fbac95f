package wasm

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestGuestOutputTaggedWithProvider: docs/abi.md §6 says a guest's stdout
// and stderr go to the host log tagged with the provider, but the lines
// carried the file alone (the sink is made before the guest registers
// and says who it is); aios.log lines had the provider. Lines written once
// the guest has registered carry provider=<id>.
func TestGuestOutputTaggedWithProvider(t *testing.T) {
	var data strings.Builder
	seg := func(addr int, s string) uint64 {
		d, packed := watData(addr, s)
		data.WriteString(d)
		return packed
	}
	reg := seg(1024, `{"format":1,"provider":{"id":"org.test.tagged"},"tools":[{"name":"a"}]}`)
	okRes := seg(2048, `{"value":1}`)
	hello := seg(3000, "hello from the guest\n")
	src := fmt.Sprintf(`(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  %s
  (func (export "aios_alloc") (param $n i32) (result i32) (i32.const 65536))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param $p i32) (param $n i32) (result i64)
    (i32.store (i32.const 512) (i32.wrap_i64 (i64.shr_u (i64.const %d) (i64.const 32))))
    (i32.store (i32.const 516) (i32.wrap_i64 (i64.const %d)))
    (drop (call $fd_write (i32.const 1) (i32.const 512) (i32.const 1) (i32.const 520)))
    (i64.const %d)))`, data.String(), reg, hello, hello, okRes)
	path := buildWAT(t, src)
	var logs syncBuffer
	l := newTestLoader(t, Config{PoolSize: 1}, slog.New(slog.NewTextHandler(&logs, nil)))
	p := load(t, l, path)
	defer p.Close()
	if _, err := call(p, newFakeEnv(p, 3), "a", map[string]any{}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "hello from the guest") {
			line = l
		}
	}
	if !strings.Contains(line, "provider=org.test.tagged") || !strings.Contains(line, "guest=stdout") {
		t.Fatalf("the guest's stdout line %q is not tagged provider=org.test.tagged:\n%s", line, logs.String())
	}
}
