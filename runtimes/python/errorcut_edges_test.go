package python_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestLongErrorMessageFitsHostBound: the SDK cut a long error message at
// 64 Ki characters and added "… (N characters cut)", which left it above
// the 64 KiB the host keeps of a provider's message (host.boundError); the
// host cut it again, dropping the SDK's note and the exception's "(at
// file.py:LINE)", and said "the provider's message of 65566 bytes, cut" of
// a message of a megabyte (non-ASCII text, counted in characters, was cut
// by the host at a quarter of it). The SDK now cuts in UTF-8 bytes, its
// note included, within the host's bound: the caller reads how many
// characters were cut and where the exception was raised.
func TestLongErrorMessageFitsHostBound(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	loadTool(t, h, "cut.py", `from aios_sdk import tool, ToolError

@tool(name="long-toolerror")
def long_toolerror(params):
    raise ToolError(ToolError.NotFound, "y" * 1000000)

@tool(name="wide-toolerror")
def wide_toolerror(params):
    raise ToolError(ToolError.NotFound, "\u00e9" * 100000)

@tool(name="wide-exception")
def wide_exception(params):
    raise ValueError("\u00fc" * 70000)

@tool(name="ok")
def ok(params):
    return {"ok": True}
`)
	cases := []struct {
		tool     string
		code     abi.ErrorCode
		contains []string
	}{
		{"long-toolerror", abi.NotFound, []string{"yyy", "characters cut)"}},
		{"wide-toolerror", abi.NotFound, []string{"\u00e9\u00e9\u00e9", "characters cut)"}},
		{"wide-exception", abi.ProviderError, []string{"ValueError: \u00fc\u00fc", "characters cut) (at cut.py:13)"}},
	}
	for _, c := range cases {
		_, err := call(h, c.tool, map[string]any{}, 20*time.Second)
		wantCode(t, err, c.code, c.contains...)
		var te *abi.ToolError
		errors.As(err, &te)
		if len(te.Message) > 64<<10 {
			t.Errorf("%s: a message of %d bytes, above the host's 64 KiB", c.tool, len(te.Message))
		}
		if strings.Contains(te.Message, "the provider's message of") {
			t.Errorf("%s: the host cut the SDK's cut message again: %q", c.tool, te.Message[len(te.Message)-120:])
		}
	}
	stillServes(t, h, "long error messages")
}
