package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestEmptySocketRefused: --socket "" (a script's --socket "$SOCK"
// with SOCK unset) was taken as no --socket: list, call and diff then
// asked whatever host answered on the default socket, or, none answering,
// loaded the plugins in their own process, where a --socket that names
// no host is an error; run served on the default socket. An empty
// --socket is a usage error (exit 2).
func TestEmptySocketRefused(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"list", "--socket", ""},
		{"call", "analyze-complexity", "{}", "--socket="},
		{"diff", "analyze-complexity", "--socket", ""},
		{"run", "--socket", ""},
	} {
		// run with an empty --socket served until stopped: a deadline.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var out, errb syncBuffer
		code := run(ctx, append(args, "--plugins", e.plugins, "--data", e.data), strings.NewReader(""), &out, &errb)
		cancel()
		errs := errb.String()
		if code != exitUsage || out.String() != "" || !strings.Contains(errs, `--socket "": empty value`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out.String(), errs)
		}
	}
}
