package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// ToolError(None, "x") (a code looked up in a table that lacked it) and
// ToolError("", "x") failed the call with a plain ProviderError "x", as if
// the tool had meant it, while ToolError(404, "x") is named as a code that
// is not the ABI's. A code given but empty or None is named the same way.
const probeNoneCodeSrc = `
from aios_sdk import tool, ToolError

@tool
def none_code(params):
    raise ToolError(None, "none code")

@tool
def empty_code(params):
    raise ToolError("", "empty code")
`

func TestProbeToolErrorNoneCodeNamed(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	loadTool(t, h, "codes.py", probeNoneCodeSrc)
	_, err := call(h, "none-code", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "none code", `"None"`, "not one of the ABI's")
	_, err = call(h, "empty-code", map[string]any{}, 20*time.Second)
	wantCode(t, err, abi.ProviderError, "empty code", `""`, "not one of the ABI's")
}
