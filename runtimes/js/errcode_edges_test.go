package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestForeignErrorCodeKept: an Error carrying a code that is not one of
// the ABI's (node's style: err.code = 'ENOENT', a library's 'E_QUOTA')
// reached the caller as "Error: no such file" with the code nowhere,
// neither in the message nor in data. It is kept: the message names it
// and data.code holds it. An ABI code still sets the ToolError's code.
func TestForeignErrorCodeKept(t *testing.T) {
	const src = `
aios.registerTool({ name: 'enoent' }, () => {
  const e = new Error('no such file: a.txt'); e.code = 'ENOENT'; throw e;
});
aios.registerTool({ name: 'inmsg' }, () => {
  const e = new Error('ENOENT: no such file'); e.code = 'ENOENT'; throw e;
});
aios.registerTool({ name: 'abi' }, () => {
  const e = new Error('missing'); e.code = 'NotFound'; throw e;
});
`
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "codes.js", src)
	_, err := call(t, p, newFakeEnv(), "enoent", map[string]any{}, 5*time.Second)
	te := wantCode(t, err, abi.ProviderError)
	if !strings.Contains(te.Message, `Error: no such file: a.txt (code "ENOENT")`) {
		t.Errorf("message %q does not name the code", te.Message)
	}
	if d, _ := te.Data.(map[string]any); d["code"] != "ENOENT" {
		t.Errorf("data %v has no code ENOENT", te.Data)
	}
	_, err = call(t, p, newFakeEnv(), "inmsg", map[string]any{}, 5*time.Second)
	te = wantCode(t, err, abi.ProviderError)
	if strings.Count(te.Message, "ENOENT") != 1 {
		t.Errorf("message %q names the code again though its text has it", te.Message)
	}
	_, err = call(t, p, newFakeEnv(), "abi", map[string]any{}, 5*time.Second)
	wantCode(t, err, abi.NotFound)
}
