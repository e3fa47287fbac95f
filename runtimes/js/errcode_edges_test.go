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

// TestForeignNumericErrorCodeKept: an error whose code is a number (an
// HTTP status, e.code = 404) kept it as the string "404" in data.code, and
// the message said (code "404"), another type than the one thrown. It is
// the number 404 in both now; a string code stays a string.
func TestForeignNumericErrorCodeKept(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "num.js", `
aios.registerTool({ name: 'http' }, () => { const e = new Error('upstream refused'); e.code = 404; throw e; });
aios.registerTool({ name: 'plain' }, () => { throw { message: 'bad', code: 1.5 }; });
`)
	_, err := call(t, p, newFakeEnv(), "http", map[string]any{}, 5*time.Second)
	te := wantCode(t, err, abi.ProviderError)
	if !strings.Contains(te.Message, "Error: upstream refused (code 404)") {
		t.Errorf("message %q, want (code 404)", te.Message)
	}
	if d, _ := te.Data.(map[string]any); d["code"] != int64(404) {
		t.Errorf("data.code %#v, want the number 404", d["code"])
	}
	_, err = call(t, p, newFakeEnv(), "plain", map[string]any{}, 5*time.Second)
	te = wantCode(t, err, abi.ProviderError)
	if d, _ := te.Data.(map[string]any); d["code"] != 1.5 {
		t.Errorf("data.code %#v (message %q), want the number 1.5", d["code"], te.Message)
	}
}
