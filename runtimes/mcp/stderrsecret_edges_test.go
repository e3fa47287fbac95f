package mcp

import (
	"strings"
	"testing"
	"time"
)

// A stdio server that fails to start saying why on stderr, quoting the key
// of its env ("invalid API key sk-…", a dump of its settings), had the key
// written into the host's log: the warning of its last stderr lines, and
// each line at debug level; a failed call's error had it taken out
// (TestEnvSecretNotInErrors). The lines say [redacted: …] now too.
func TestStdioStderrEnvSecretNotLogged(t *testing.T) {
	const key = "sk-stderr-0123456789"
	sc := ServerConfig{Command: "/bin/sh", Args: []string{"-c", `echo "starting with OPENAI_API_KEY=$OPENAI_API_KEY" >&2; echo "invalid API key $OPENAI_API_KEY" >&2; exit 3`},
		Env: map[string]string{"OPENAI_API_KEY": key}, ConnectTimeout: 5 * time.Second, ReconnectMax: time.Second}
	_, _, logs, err := startBridge(t, map[string]ServerConfig{"s": sc})
	if err == nil {
		t.Fatal("Start: want the server's failure")
	}
	l := logs.String()
	if !strings.Contains(l, "invalid API key [redacted: mcp.servers.s env OPENAI_API_KEY]") {
		t.Errorf("the stderr lines are not logged with the key redacted:\n%s", l)
	}
	if strings.Contains(l, key) || strings.Contains(err.Error(), key) {
		t.Errorf("the env's key is in the host's log or Start's error:\n%s\n%v", l, err)
	}
}
