package native

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestPanicStackNoHostPaths: the stack of a native tool's panic, in
// the ProviderCrashed error every caller gets (MCP clients and remote
// agents too), named each frame's file by its absolute path on the
// machine that built the host (/home/<user>/src/aios-host/…/x.go:141),
// where a WASM Go guest's stack names module paths and a JS stack base
// names. It names the file by its package path and base name now
// (github.com/aios-host/aios-host/runtimes/native/provider_test.go:24),
// what `go build -trimpath` would print.
func TestPanicStackNoHostPaths(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	p := newTestProvider(t)
	_, err = p.Call(context.Background(), &abi.ToolCall{Tool: "crash"}, nil)
	te := abi.AsToolError(err, abi.Internal)
	data, _ := te.Data.(map[string]any)
	stack, _ := data["stack"].(string)
	if strings.Contains(stack, wd) || strings.Contains(stack, filepath.Dir(wd)) {
		t.Errorf("the stack names the build machine's folders (%s):\n%s", wd, stack)
	}
	if want := "github.com/aios-host/aios-host/runtimes/native/provider_test.go:24"; !strings.Contains(stack, want) {
		t.Errorf("the stack does not name the frame's file as %s:\n%s", want, stack)
	}
}
