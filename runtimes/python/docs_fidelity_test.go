package python_test

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestNoToolsMessage: a Python file that registers nothing was told
// to "decorate methods with @tool(...) inside an @Agent(...) class" only,
// although docs/python.md teaches module-level @tool functions too (and
// the JS runtime's message names both ways).
func TestNoToolsMessage(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	_, err := h.LoadFile(context.Background(), writeTool(t, "nothing.py", "x = 1\n"), host.ProviderMeta{Trust: abi.System})
	checkLoadErr(t, err, []string{"registers no tools", "module-level functions with @tool(...)", "@Agent(...) class"})
}
