package mcp

import (
	"strings"
	"testing"
	"time"
)

// A stdio server that exits before answering initialize (a missing API
// key, a bad argument) was reported only as `calling "initialize": EOF`:
// why it exited was in its stderr, logged at debug level, which `run`,
// `list` and `mcp` do not show by default. Its last stderr lines and exit
// status are now logged at warn level with the failure (not put into the
// error, which callers of its tools see: stderr may hold what they should
// not).
func TestStartupFailureShowsStderr(t *testing.T) {
	sc := ServerConfig{Command: "/bin/sh", Args: []string{"-c", "echo starting >&2; echo \"fatal: $WHAT\" >&2; exit 3"},
		Env:            map[string]string{"WHAT": "missing API key FOO_TOKEN"},
		ConnectTimeout: 5 * time.Second, ReconnectMax: 200 * time.Millisecond}
	_, _, logs, err := startBridge(t, map[string]ServerConfig{"bad": sc})
	if err == nil {
		t.Fatal("Start succeeded with a server that exits at once")
	}
	found := false
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "level=WARN") && strings.Contains(l, "fatal: missing API key FOO_TOKEN") && strings.Contains(l, "exit status 3") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no warning with the server's stderr and exit status:\n%s", logs.String())
	}
}
