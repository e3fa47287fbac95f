package wasm

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer for a logger written from several
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestGuestOutputLineEndsWithCall: a guest's stdout and stderr reach the
// host log line by line (docs/abi.md §6), but an unfinished line, output
// without a newline at its end (a C guest's printf("done"), Go's
// fmt.Print), was held in a buffer the provider's instances shared: it
// never reached the log when no newline followed (lost, even at Close),
// and when one came, in a later call or another instance's output, the
// two were logged as one line ("alpha-no-newlinebeta"). Each instance now
// has its own unfinished lines, and the end of a guest call ends them.
func TestGuestOutputLineEndsWithCall(t *testing.T) {
	var data strings.Builder
	seg := func(addr int, s string) uint64 {
		d, packed := watData(addr, s)
		data.WriteString(d)
		return packed
	}
	reg := seg(1024, `{"format":1,"provider":{"id":"org.test.partial"},"tools":[{"name":"a"},{"name":"b"},{"name":"e"}]}`)
	okRes := seg(2048, `{"value":1}`)
	alpha := seg(3000, "alpha-no-newline")
	beta := seg(3100, "beta\n")
	errTail := seg(3200, "stderr-no-newline")
	src := fmt.Sprintf(`(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 65536))
  %s
  (func (export "aios_alloc") (param $n i32) (result i32) (i32.const 65536))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func $letter (param $p i32) (param $n i32) (result i32)
    (local $i i32)
    (block $done (loop $scan
      (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
      (if (i64.eq (i64.load (i32.add (local.get $p) (local.get $i))) (i64.const 0x223a226c6f6f7422))
        (then (return (i32.load8_u (i32.add (i32.add (local.get $p) (local.get $i)) (i32.const 8))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $scan)))
    (i32.const 0))
  (func $out (param $fd i32) (param $packed i64)
    (i32.store (i32.const 512) (i32.wrap_i64 (i64.shr_u (local.get $packed) (i64.const 32))))
    (i32.store (i32.const 516) (i32.wrap_i64 (local.get $packed)))
    (drop (call $fd_write (local.get $fd) (i32.const 512) (i32.const 1) (i32.const 520))))
  (func (export "aios_call") (param $p i32) (param $n i32) (result i64)
    (local $c i32)
    (local.set $c (call $letter (local.get $p) (local.get $n)))
    (if (i32.eq (local.get $c) (i32.const 0x61)) (then (call $out (i32.const 1) (i64.const %d))))
    (if (i32.eq (local.get $c) (i32.const 0x62)) (then (call $out (i32.const 1) (i64.const %d))))
    (if (i32.eq (local.get $c) (i32.const 0x65)) (then (call $out (i32.const 2) (i64.const %d))))
    (i64.const %d)))`, data.String(), reg, alpha, beta, errTail, okRes)
	path := buildWAT(t, src)

	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	l := newTestLoader(t, Config{PoolSize: 1}, logger)
	p := load(t, l, path)
	defer p.Close()
	env := newFakeEnv(p, 3)
	for _, tool := range []string{"a", "b", "e"} {
		if _, err := call(p, env, tool, map[string]any{}, 30*time.Second); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}
	out := logs.String()
	for _, want := range []string{
		`msg=alpha-no-newline runtime=wasm`,
		`msg=beta runtime=wasm`,
		`msg=stderr-no-newline runtime=wasm`,
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("the host log lacks the line %q once the call has returned:\n%s", want, out)
		}
	}
	if strings.Contains(out, "alpha-no-newlinebeta") {
		t.Fatalf("one call's unfinished line and the next call's line were logged as one:\n%s", out)
	}
}
