package precompile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/aios-host/aios-host/internal/testutil"
)

// loops is a module of one function with n sequential loops: n
// control-flow nodes, which wazero compiles in time growing with n².
func loops(n int) []byte { return testutil.CoreModule(testutil.Repeat(n, 0x03, 0x40, 0x0b)) }

// compileHere compiles bin in this process as the host would after Check,
// and returns how long it took.
func compileHere(t *testing.T, bin []byte, dir string) time.Duration {
	t.Helper()
	ctx := context.Background()
	cfg := wazero.NewRuntimeConfig()
	if dir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer cache.Close(ctx)
		cfg = cfg.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	defer rt.Close(ctx)
	start := time.Now()
	if _, err := rt.CompileModule(ctx, bin); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

func TestCheckSmallModuleStaysInProcess(t *testing.T) {
	before := spawned.Load()
	if err := Check(context.Background(), "small.wasm", loops(100), Options{CacheDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if n := spawned.Load() - before; n != 0 {
		t.Fatalf("%d compiler processes started for a 100-node module", n)
	}
}

func TestCheckFillsTheCache(t *testing.T) {
	bin := loops(3000)
	dir := t.TempDir()
	before := spawned.Load()
	start := time.Now()
	// A budget of 1 sends every module with a loop to a compiler process.
	if err := Check(context.Background(), "loops.wasm", bin, Options{CacheDir: dir, WorkBudget: 1}); err != nil {
		t.Fatal(err)
	}
	inChild := time.Since(start)
	if n := spawned.Load() - before; n != 1 {
		t.Fatalf("%d compiler processes started, want 1", n)
	}
	var files int
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasSuffix(p, ".tmp") {
			files++
		}
		return nil
	})
	if files == 0 {
		t.Fatalf("the compiler process left nothing in the cache %s", dir)
	}
	// The host's compile now finds the code in the cache: much faster than
	// compiling it (what the compiler process took, and a fresh compile).
	cached := compileHere(t, bin, dir)
	fresh := compileHere(t, bin, "")
	t.Logf("compiler process %v, fresh compile %v, from the cache %v", inChild, fresh, cached)
	if cached*3 > fresh {
		t.Fatalf("compile from the cache took %v, a fresh compile %v: the compiler process's cache entry was not used", cached, fresh)
	}
}

func TestCheckTimeout(t *testing.T) {
	// 60 000 nodes in one function: about a minute of compiling.
	bin := loops(60000)
	start := time.Now()
	err := Check(context.Background(), "slow.wasm", bin, Options{CacheDir: t.TempDir(), Timeout: 300 * time.Millisecond})
	took := time.Since(start)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	for _, want := range []string{"slow.wasm", "longer than 300ms", "compile_timeout", "function 0 has 60000 control-flow nodes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if took > 15*time.Second {
		t.Fatalf("Check returned after %v with a 300ms timeout", took)
	}
}

func TestCheckCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := Check(ctx, "slow.wasm", loops(60000), Options{})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want the caller's context.DeadlineExceeded", err)
	}
}

func TestCheckInvalidModule(t *testing.T) {
	for name, bin := range map[string][]byte{
		// Measure cannot read it, so the compiler process is asked.
		"unreadable": append([]byte("\x00asm\x01\x00\x00\x00"), 0x0a, 0x05, 0x01, 0x03, 0x00, 0xff, 0x0b),
		// Readable, over budget, and invalid: a loop whose `end` is missing.
		"unbalanced": testutil.CoreModule(append(testutil.Repeat(20000, 0x03, 0x40, 0x0b), 0x03, 0x40)),
	} {
		t.Run(name, func(t *testing.T) {
			err := Check(context.Background(), "bad.wasm", bin, Options{WorkBudget: 1})
			var ce *CompileError
			if !errors.As(err, &ce) || ce.Msg == "" {
				t.Fatalf("err = %v, want a *CompileError", err)
			}
		})
	}
}

func TestServe(t *testing.T) {
	for _, tc := range []struct {
		name string
		bin  []byte
		want string
	}{
		{"valid", loops(3), "ok\n"},
		{"invalid", []byte("\x00asm\x01\x00\x00\x00\x0a\x01"), "error: "},
	} {
		var out bytes.Buffer
		if code := serve(bytes.NewReader(tc.bin), &out); code != 0 {
			t.Fatalf("%s: exit code %d", tc.name, code)
		}
		if !strings.HasPrefix(out.String(), tc.want) || !strings.HasSuffix(out.String(), "\n") || strings.Count(out.String(), "\n") != 1 {
			t.Errorf("%s: answer %q, want one line starting %q", tc.name, out.String(), tc.want)
		}
	}
}

// TestCheckLocalsTimesLoops: few nodes but many locals is slow too (100 000
// locals and 4 000 loops, a 1 MB file, compiled in 13 s here): such a
// module goes to a compiler process, and the error names its locals.
func TestCheckLocalsTimesLoops(t *testing.T) {
	var body []byte
	for i := 1; i <= 100000; i++ { // set every local, so that each stays live
		body = append(body, 0x41, 1, 0x21)
		body = testutil.AppendULEB(body, uint64(i))
	}
	body = append(body, testutil.Repeat(4000, 0x03, 0x40, 0x0b)...)
	bin := testutil.CoreModuleLocals(100000, body)
	before := Spawned()
	err := Check(context.Background(), "locals.wasm", bin, Options{CacheDir: t.TempDir(), Timeout: 300 * time.Millisecond})
	if n := Spawned() - before; n != 1 {
		t.Fatalf("%d compiler processes started, want 1", n)
	}
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "4000 control-flow nodes and 100001 locals") {
		t.Fatalf("err = %v, want a timeout naming the nodes and locals", err)
	}
}

const replacedEnv = "PRECOMPILE_TEST_REPLACED"

// TestMain lets a copy of the test binary replace its own file and then
// run a compiler process (TestCompilerIsTheRunningBinary).
func TestMain(m *testing.M) {
	if os.Getenv(replacedEnv) == "1" {
		exe, err := os.Executable()
		if err == nil {
			tmp := exe + ".new"
			if err = os.WriteFile(tmp, []byte("#!/bin/sh\nexit 7\n"), 0o755); err == nil {
				err = os.Rename(tmp, exe)
			}
		}
		if err == nil {
			err = Check(context.Background(), "loops.wasm", loops(50), Options{CacheDir: os.Getenv("PRECOMPILE_TEST_CACHE"), WorkBudget: 1})
		}
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("ok")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestCompilerIsTheRunningBinary: the compiler process is the running
// build even after its file was replaced (an upgrade while the host runs):
// a different build would write cache entries under other keys.
func TestCompilerIsTheRunningBinary(t *testing.T) {
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("no /proc/self/exe here")
	}
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "precompile.test")
	if err := os.WriteFile(copyPath, src, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(copyPath, "-test.run=^$")
	cmd.Env = append(os.Environ(), replacedEnv+"=1", "PRECOMPILE_TEST_CACHE="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("after its file was replaced, the binary's compiler process failed: %v\n%s", err, out)
	}
}
