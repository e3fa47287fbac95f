package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCallStdinParamsTooLargeIsToolErrorJSON: params over
// limits.max_params_bytes given inline are refused by the host as a
// TooLarge tool error, printed with --json as {"code": "TooLarge", …} on
// stdout; the same params read from stdin ("-") were refused by the CLI
// with a plain line on stderr and nothing on stdout, so a script reading
// the --json object (jq .code) got nothing to read. Now both print the
// same TooLarge object (exit 1).
func TestCallStdinParamsTooLargeIsToolErrorJSON(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(t.TempDir(), "aios.yaml")
	if err := os.WriteFile(cfg, []byte("limits:\n  max_params_bytes: 1024\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := `{"object_id": "` + strings.Repeat("a", 2000) + `"}`
	for _, tc := range []struct{ name, stdin, arg string }{
		{"inline", "", big},
		{"stdin", big, "-"},
	} {
		code, out, errs := e.run(tc.stdin, "call", "analyze-complexity", tc.arg, "--json", "--config", cfg)
		var got struct {
			Code string         `json:"code"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(out), &got); code != exitFail || err != nil || got.Code != "TooLarge" || got.Data["limit"] != float64(1024) {
			t.Errorf("%s params over the limit with --json: exit %d, stdout %q (%v), stderr %q; want exit 1 and {\"code\": \"TooLarge\", \"data\": {\"limit\": 1024}}", tc.name, code, out, err, errs)
		}
	}
	// Without --json the TooLarge error is said on stderr, as for any
	// tool error.
	code, out, errs := e.run(big, "call", "analyze-complexity", "-", "--config", cfg)
	if code != exitFail || out != "" || !strings.HasPrefix(errs, "TooLarge: ") || !strings.Contains(errs, "limits.max_params_bytes") {
		t.Errorf("stdin params over the limit: exit %d, stdout %q, stderr %q; want exit 1 and TooLarge: … limits.max_params_bytes on stderr", code, out, errs)
	}
}

// TestCallViaSocketFailureIsJSON: `call --json` through a running host
// whose answer never came (or whose connection broke) printed only a line
// on stderr and nothing on stdout, although --json promises the result or
// an error object there: a script reading the object (jq .code) got
// nothing to read. Now the failure is also printed as an Unavailable
// error object on stdout (exit 1, the line on stderr as before).
func TestCallViaSocketFailureIsJSON(t *testing.T) {
	defer func(l, m time.Duration) { listWait, socketMargin = l, m }(listWait, socketMargin)
	listWait, socketMargin = 300*time.Millisecond, 300*time.Millisecond
	e := newEnv(t)
	sock := filepath.Join(e.data, "mute.sock")
	startFakeHost(t, sock, func(string) any { return nil })
	var out bytes.Buffer
	code, errs := runWith(t, strings.NewReader(""), &out, "call", "echo", "{}", "--timeout", "200ms", "--socket", sock, "--data", e.data, "--json")
	var got struct{ Code, Message string }
	if err := json.Unmarshal(out.Bytes(), &got); code != exitFail || err != nil || got.Code != "Unavailable" ||
		!strings.Contains(got.Message, "did not answer tools/call") || !strings.Contains(errs, "did not answer tools/call") {
		t.Fatalf("call --json on a mute socket: exit %d, stdout %q (%v), stderr %q; want exit 1, an Unavailable object on stdout and the reason on stderr", code, out.String(), err, errs)
	}
	// Without --json, stdout stays empty.
	out.Reset()
	code, errs = runWith(t, strings.NewReader(""), &out, "call", "echo", "{}", "--timeout", "200ms", "--socket", sock, "--data", e.data)
	if code != exitFail || out.Len() != 0 || !strings.Contains(errs, "did not answer tools/call") {
		t.Fatalf("call on a mute socket: exit %d, stdout %q, stderr %q", code, out.String(), errs)
	}
}

// TestCallInterruptedIsCancelledJSON: a call interrupted (SIGINT, SIGTERM:
// the command's context cancelled) printed only a line on stderr with
// --json, through a running host or in this process while the plugins
// loaded: nothing on stdout. Now --json prints a Cancelled error object
// there (exit 1).
func TestCallInterruptedIsCancelledJSON(t *testing.T) {
	e := newEnv(t)
	sock := filepath.Join(e.data, "slow.sock")
	f := startFakeHost(t, sock, func(string) any { return nil })
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		deadline := time.Now().Add(15 * time.Second)
		for len(f.paramsOf("tools/call")) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	var out, errb syncBuffer
	code := run(ctx, []string{"call", "echo", "{}", "--socket", sock, "--data", e.data, "--json"}, strings.NewReader(""), &out, &errb)
	var got struct{ Code string }
	if err := json.Unmarshal([]byte(out.String()), &got); code != exitFail || err != nil || got.Code != "Cancelled" {
		t.Errorf("call --json through a host, interrupted: exit %d, stdout %q (%v), stderr %q; want exit 1 and a Cancelled object", code, out.String(), err, errb.String())
	}

	// In this process: interrupted before the plugins had loaded.
	done, stop := context.WithCancel(context.Background())
	stop()
	var out2, errb2 syncBuffer
	code = run(done, []string{"call", "analyze-complexity", "{}", "--as", "cli", "--plugins", e.plugins, "--data", e.data, "--json"}, strings.NewReader(""), &out2, &errb2)
	got.Code = ""
	if err := json.Unmarshal([]byte(out2.String()), &got); code != exitFail || err != nil || got.Code != "Cancelled" || !strings.Contains(errb2.String(), "interrupted") {
		t.Errorf("call --json in this process, interrupted: exit %d, stdout %q (%v), stderr %q; want exit 1, a Cancelled object and the reason on stderr", code, out2.String(), err, errb2.String())
	}
}
