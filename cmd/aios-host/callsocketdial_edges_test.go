package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallSocketNoHostIsJSON: `call --socket PATH --json` with no host
// answering on PATH (it stopped, a wrong path) printed only a line on
// stderr: stdout, which --json promises holds the result or an error
// object, was empty, and a script reading it got no JSON. It prints
// {"code": "Unavailable", "message"} there now, as for a host that does
// not answer (TestCallViaSocketFailureIsJSON), exit 1, the reason still on
// stderr; without --json stdout stays empty.
func TestCallSocketNoHostIsJSON(t *testing.T) {
	e := newEnv(t)
	sock := filepath.Join(t.TempDir(), "gone.sock")
	var out bytes.Buffer
	code, errs := runWith(t, strings.NewReader(""), &out, "call", "echo", "{}", "--socket", sock, "--data", e.data, "--json")
	var got struct{ Code, Message string }
	if err := json.Unmarshal(out.Bytes(), &got); code != exitFail || err != nil || got.Code != "Unavailable" ||
		!strings.Contains(got.Message, sock) || !strings.Contains(errs, "no host answers on "+sock) {
		t.Fatalf("call --json --socket with no host: exit %d, stdout %q (%v), stderr %q; want exit 1, an Unavailable object naming the socket on stdout and the reason on stderr", code, out.String(), err, errs)
	}
	out.Reset()
	code, errs = runWith(t, strings.NewReader(""), &out, "call", "echo", "{}", "--socket", sock, "--data", e.data)
	if code != exitFail || out.Len() != 0 || !strings.Contains(errs, "no host answers on "+sock) {
		t.Fatalf("call --socket with no host: exit %d, stdout %q, stderr %q", code, out.String(), errs)
	}
}
