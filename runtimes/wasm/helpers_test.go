package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/aios-host/aios-host/internal/testutil"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// watData renders s as a WAT data segment at addr and returns the segment
// and the packed ptr<<32|len of it.
func watData(addr int, s string) (string, uint64) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "\\%02x", s[i])
	}
	return fmt.Sprintf("(data (i32.const %d) \"%s\")\n", addr, b.String()), uint64(addr)<<32 | uint64(len(s))
}

// basicWAT is a JSON-speaking guest written by hand, with one tool per
// misbehaviour. aios_call finds `"tool":"` in the call and dispatches on the
// first letter of the name.
func basicWAT(id string, minPages int) string {
	var data strings.Builder
	seg := func(addr int, s string) uint64 {
		d, packed := watData(addr, s)
		data.WriteString(d)
		return packed
	}
	reg := seg(1024, `{"format":1,"provider":{"id":"`+id+`","capabilities":["CallTool(*)"]},"tools":[`+
		`{"name":"const","parameters":{"type":"object"}},{"name":"trap"},{"name":"loop"},{"name":"memgrow"},`+
		`{"name":"oob"},{"name":"junk"},{"name":"xenc"},{"name":"spam"},{"name":"nested"},{"name":"badreq"},{"name":"write"}]}`)
	okRes := seg(4096, `{"value":{"ok":true}}`)
	junk := seg(4200, `{not json`)
	xenc := seg(4300, `xyz`)
	nested := seg(4400, `{"tool":"nested","params":{}}`)
	line := strings.Repeat("spam ", 200) + "\n"
	spamLine := seg(8192, line)
	write := seg(4500, `{"space":"s1","data":"aGVsbG8="}`)
	return fmt.Sprintf(`(module
  (import "aios" "call_tool" (func $call_tool (param i32 i32) (result i64)))
  (import "aios" "space_write" (func $space_write (param i32 i32) (result i64)))
  (import "aios" "log" (func $log (param i32 i32 i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") %d)
  (global $heap (mut i32) (i32.const 65536))
  %s
  (func $alloc (export "aios_alloc") (param $n i32) (result i32)
    (local $p i32) (local $end i32)
    (local.set $p (global.get $heap))
    (local.set $end (i32.and (i32.add (i32.add (local.get $p) (local.get $n)) (i32.const 7)) (i32.const -8)))
    (if (i32.gt_u (local.get $end) (i32.mul (memory.size) (i32.const 65536)))
      (then (if (i32.eq (memory.grow (i32.add (i32.shr_u (local.get $n) (i32.const 16)) (i32.const 1))) (i32.const -1))
        (then (return (i32.const 0))))))
    (global.set $heap (local.get $end))
    (local.get $p))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_abi_version") (result i32) (i32.const 1))
  (func $letter (param $p i32) (param $n i32) (result i32)
    (local $i i32)
    (block $done (loop $scan
      (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
      (if (i64.eq (i64.load (i32.add (local.get $p) (local.get $i))) (i64.const 0x223a226c6f6f7422))
        (then (return (i32.load8_u (i32.add (i32.add (local.get $p) (local.get $i)) (i32.const 8))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $scan)))
    (i32.const 0))
  (func (export "aios_call") (param $p i32) (param $n i32) (result i64)
    (local $c i32) (local $k i32)
    (local.set $c (call $letter (local.get $p) (local.get $n)))
    (if (i32.eq (local.get $c) (i32.const 0x74)) (then unreachable))              ;; trap
    (if (i32.eq (local.get $c) (i32.const 0x6c)) (then (loop $forever (br $forever)))) ;; loop
    (if (i32.eq (local.get $c) (i32.const 0x6d)) (then                             ;; memgrow
      (loop $grow (br_if $grow (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
      unreachable))
    (if (i32.eq (local.get $c) (i32.const 0x6f)) (then (return (i64.const 0x7fff000000000100)))) ;; oob
    (if (i32.eq (local.get $c) (i32.const 0x6a)) (then (return (i64.const %d))))   ;; junk
    (if (i32.eq (local.get $c) (i32.const 0x78)) (then (return (i64.const %d))))   ;; xenc
    (if (i32.eq (local.get $c) (i32.const 0x6e)) (then                             ;; nested
      (return (call $call_tool (i32.wrap_i64 (i64.shr_u (i64.const %d) (i64.const 32))) (i32.wrap_i64 (i64.const %d))))))
    (if (i32.eq (local.get $c) (i32.const 0x62)) (then                             ;; badreq
      (return (call $call_tool (i32.const 0x7fff0000) (i32.const 100)))))
    (if (i32.eq (local.get $c) (i32.const 0x77)) (then                             ;; write
      (return (call $space_write (i32.wrap_i64 (i64.shr_u (i64.const %d) (i64.const 32))) (i32.wrap_i64 (i64.const %d))))))
    (if (i32.eq (local.get $c) (i32.const 0x73)) (then                             ;; spam: 4 MiB to stdout
      (i32.store (i32.const 512) (i32.wrap_i64 (i64.shr_u (i64.const %d) (i64.const 32))))
      (i32.store (i32.const 516) (i32.wrap_i64 (i64.const %d)))
      (loop $more
        (drop (call $fd_write (i32.const 1) (i32.const 512) (i32.const 1) (i32.const 520)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br_if $more (i32.lt_u (local.get $k) (i32.const 4200))))
      (call $log (i32.const 2) (i32.wrap_i64 (i64.shr_u (i64.const %d) (i64.const 32))) (i32.const 4))))
    (i64.const %d))
)`, minPages, data.String(), reg, junk, xenc, nested, nested, write, write, spamLine, spamLine, spamLine, okRes)
}

// wat2wasm compiles WAT source once per test process (keyed by content).
var watCache sync.Map

func buildWAT(t testing.TB, src string) string {
	t.Helper()
	sum := sha256.Sum256([]byte(src))
	key := hex.EncodeToString(sum[:8])
	if p, ok := watCache.Load(key); ok {
		return p.(string)
	}
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		t.Fatalf("wat2wasm not found: install wabt (scripts/deps.sh)")
	}
	dir := filepath.Join(os.TempDir(), "aios-wasm-test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The folder is shared with every test process of the machine (the
	// tagged run, other checkouts): each writes its own temporary files
	// and renames the module into place, so a process never reads a
	// module another is still writing.
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	watPath := filepath.Join(tmp, key+".wat")
	built := filepath.Join(tmp, key+".wasm")
	if err := os.WriteFile(watPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("wat2wasm", watPath, "-o", built).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, b)
	}
	out := filepath.Join(dir, key+".wasm")
	if err := os.Rename(built, out); err != nil {
		t.Fatal(err)
	}
	watCache.Store(key, out)
	return out
}

// fakeEnv is an abi.Env for runtime tests: nested calls go back to the same
// provider with the depth limit enforced, spaces are maps.
type fakeEnv struct {
	p        abi.Provider
	call     *abi.ToolCall
	maxDepth int
	spaces   *sync.Map // space/id -> []byte
	logger   *slog.Logger
	// tools answers nested calls of other providers' tools by name.
	tools map[string]func(params any) (any, error)
}

func newFakeEnv(p abi.Provider, maxDepth int) *fakeEnv {
	return &fakeEnv{p: p, maxDepth: maxDepth, spaces: &sync.Map{}, logger: slog.New(slog.DiscardHandler)}
}

func (e *fakeEnv) Call() *abi.ToolCall { return e.call }

func (e *fakeEnv) CallTool(ctx context.Context, tool, version string, params any) (any, error) {
	c := &abi.ToolCall{ID: e.call.ID + ".n", ParentID: e.call.ID, Tool: tool, Params: params, Deadline: e.call.Deadline, Depth: e.call.Depth + 1}
	if c.Depth > e.maxDepth {
		return nil, abi.Errorf(abi.DepthExceeded, "call of %s is nested %d deep; the limit is %d", tool, c.Depth, e.maxDepth)
	}
	if fn := e.tools[tool]; fn != nil {
		return fn(params)
	}
	child := *e
	child.call = c
	return e.p.Call(ctx, c, &child)
}

func (e *fakeEnv) SpaceRead(ctx context.Context, space, id string) (abi.Object, error) {
	if space == "" {
		var found abi.Object
		e.spaces.Range(func(k, v any) bool {
			if sp, oid, _ := strings.Cut(k.(string), "/"); oid == id {
				found = abi.Object{Space: sp, ID: id, Data: v.([]byte)}
				return false
			}
			return true
		})
		if found.ID == "" {
			return abi.Object{}, abi.Errorf(abi.NotFound, "object %s not found", id)
		}
		return found, nil
	}
	v, ok := e.spaces.Load(space + "/" + id)
	if !ok {
		return abi.Object{}, abi.Errorf(abi.NotFound, "object %s not in space %q", id, space)
	}
	return abi.Object{Space: space, ID: id, Data: v.([]byte)}, nil
}

func (e *fakeEnv) SpaceWrite(ctx context.Context, space string, data []byte) (abi.Object, error) {
	sum := sha256.Sum256(data)
	id := "sha256:" + hex.EncodeToString(sum[:])
	e.spaces.Store(space+"/"+id, append([]byte(nil), data...))
	return abi.Object{Space: space, ID: id}, nil
}

func (e *fakeEnv) Complete(ctx context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	return abi.CompleteResponse{Text: "echo: " + req.Prompt, Model: "fake"}, nil
}

func (e *fakeEnv) Logger() *slog.Logger { return e.logger }

// call runs tool on p with a fresh fake env and deadline d.
func call(p abi.Provider, env *fakeEnv, tool string, params any, d time.Duration) (any, error) {
	c := &abi.ToolCall{ID: "c1", Tool: tool, Params: params, Deadline: time.Now().Add(d)}
	e := *env
	e.call = c
	return p.Call(context.Background(), c, &e)
}

func newTestLoader(t testing.TB, cfg Config, logger *slog.Logger) *Loader {
	t.Helper()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg.CacheDir == "" {
		// Shared by the tests of this process and the next: compiling the
		// Go guests once is enough.
		cfg.CacheDir = filepath.Join(os.TempDir(), "aios-wasm-test", "cache")
	}
	l, err := NewLoader(Options{Config: cfg, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func load(t testing.TB, l *Loader, path string) *Provider {
	t.Helper()
	p, err := l.Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p.(*Provider)
}

// builtGuest returns build/wasm/<name>.wasm, failing when samples are not built.
func builtGuest(t testing.TB, name string) string {
	p := filepath.Join(testutil.RepoRoot(t), "build", "wasm", name+".wasm")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run `make samples` (or samples/wasm/build.sh)", p)
	}
	return p
}
