package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDiffViaSocketFailureIsJSON: `diff --json` prints an error object on
// stdout for an unknown tool or version, but with no host answering on
// its --socket, or a host that did not answer, it printed only a line on
// stderr and left stdout empty: a script reading the JSON got none. Both
// now print {"code": "Unavailable", "message"} there, as `call --json`
// does, exit 1, the reason still on stderr.
func TestDiffViaSocketFailureIsJSON(t *testing.T) {
	defer func(l, m time.Duration) { listWait, socketMargin = l, m }(listWait, socketMargin)
	listWait, socketMargin = 300*time.Millisecond, 300*time.Millisecond
	e := newEnv(t)
	mute := filepath.Join(e.data, "mute.sock")
	startFakeHost(t, mute, func(string) any { return nil })
	for _, tc := range []struct{ name, sock, says string }{
		{"no host", filepath.Join(t.TempDir(), "gone.sock"), "no host answers"},
		{"a mute host", mute, "did not answer aios/registry.diff"},
	} {
		var out bytes.Buffer
		code, errs := runWith(t, strings.NewReader(""), &out, "diff", "echo", "--socket", tc.sock, "--data", e.data, "--json")
		var got struct{ Code, Message string }
		if err := json.Unmarshal(out.Bytes(), &got); code != exitFail || err != nil || got.Code != "Unavailable" ||
			!strings.Contains(got.Message, tc.says) || !strings.Contains(errs, tc.says) {
			t.Errorf("diff --json, %s: exit %d, stdout %q (%v), stderr %q; want exit 1, an Unavailable object on stdout and the reason (%s) on stderr", tc.name, code, out.String(), err, errs, tc.says)
		}
		out.Reset()
		if code, _ = runWith(t, strings.NewReader(""), &out, "diff", "echo", "--socket", tc.sock, "--data", e.data); code != exitFail || out.Len() != 0 {
			t.Errorf("diff, %s: exit %d, stdout %q; want exit 1 and nothing on stdout", tc.name, code, out.String())
		}
	}
}
