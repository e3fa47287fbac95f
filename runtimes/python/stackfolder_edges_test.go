package python_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// An exception's "(at file.py:LINE)" and its data.stack name the frames of
// the tool's folder only (docs/python.md "Handlers"), but a frame counted
// as the tool's when its file's path merely began with the folder's: with
// the tool in /srv/tools and a library in /srv/tools-lib (a virtualenv
// beside the tools, /srv/tools-venv/...), an exception raised inside the
// library was "ValueError: bad value (at helper.py:3)", blaming the
// library's line rather than the tool's, and the stack listed the
// library's frames.
func TestStackFramesOfToolFolderOnly(t *testing.T) {
	off := false
	rt := newRuntime(t, func(c *python.Config) { c.Sandbox = &off })
	h := newHost(t, rt)
	base := t.TempDir()
	tools, lib := filepath.Join(base, "tools"), filepath.Join(base, "tools-lib")
	for _, d := range []string{tools, lib} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(lib, "helper.py"), []byte(`

def fail(x):
    raise ValueError("bad " + x)
`), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `import sys
sys.path.insert(0, ` + "'" + lib + "'" + `)
import helper
from aios_sdk import tool

@tool
def throw(params):
    return helper.fail("value")
`
	p := filepath.Join(tools, "thrower.py")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.LoadFile(context.Background(), p, host.ProviderMeta{Source: "thrower.py", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	_, err := call(h, "throw", map[string]any{}, 20*time.Second)
	var te *abi.ToolError
	if !errors.As(err, &te) || te.Code != abi.ProviderError || te.Message != "ValueError: bad value (at thrower.py:8)" {
		t.Fatalf("err = %v; want ProviderError \"ValueError: bad value (at thrower.py:8)\"", err)
	}
	data, _ := te.Data.(map[string]any)
	if s, _ := data["stack"].(string); s != "ValueError: bad value\n\tat throw (thrower.py:8)" || strings.Contains(s, "helper") {
		t.Errorf("stack %q; want the tool's frame only", s)
	}
}
