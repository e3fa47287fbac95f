package wasm

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A proc_exit code outside 0..125 is told apart by engine, as docs/abi.md
// §3 says: wazero reports the code (as unsigned), while wasmtime's own
// proc_exit refuses such a code with a trap that does not name it (the
// host cannot make a wasmtime exit of its own). Both are ProviderCrashed.
func TestProcExitCodeOutsideWasmtimeRange(t *testing.T) {
	imp := `(import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))`
	for _, tc := range []struct {
		code   int32
		wazero string
	}{
		{125, "the guest exited with code 125 ("},
		{126, "the guest exited with code 126 ("},
		{300, "the guest exited with code 300 ("},
		{-1, "the guest exited with code 4294967295 ("},
	} {
		path := buildWAT(t, wasiNumbersWAT(imp, "(call $proc_exit (i32.const "+strconv.Itoa(int(tc.code))+"))"))
		for _, e := range edgeEngines {
			want := tc.wazero
			if e.name == "wasmtime" && (tc.code < 0 || tc.code >= 126) {
				want = "the guest trapped: exit with invalid exit status outside of [0..126)"
			}
			p, err := e.load(t, Config{PoolSize: 1}, abi.Source{Path: path})
			if err != nil {
				t.Fatalf("%s: %v", e.name, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			_, err = p.Call(ctx, &abi.ToolCall{Tool: "t"}, newFakeEnv(p, 3))
			cancel()
			p.Close()
			te, ok := err.(*abi.ToolError)
			if !ok || te.Code != abi.ProviderCrashed || !strings.Contains(te.Message, want) {
				t.Errorf("%s: proc_exit(%d): %v, want ProviderCrashed saying %q", e.name, tc.code, err, want)
			}
		}
	}
}
