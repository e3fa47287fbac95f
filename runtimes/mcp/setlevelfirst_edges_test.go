package mcp

import (
	"strings"
	"testing"
)

// TestSetLevelSentBeforeStartReturns: a server that declares logging is
// told level debug before its tools are called: the request went from a
// goroutine of its own, so a call made as Start returned could reach the
// server first, and a go-sdk server (which sends no log message before it
// is told a level) dropped that call's log messages
// (TestServerLogMessagesReachLog failed so on a loaded machine).
func TestSetLevelSentBeforeStartReturns(t *testing.T) {
	file := t.TempDir() + "/notes"
	sc := edgeConfig(t, "logs")
	sc.Env["AIOS_MCP_EDGE_FILE"] = file
	if _, _, _, err := startBridge(t, map[string]ServerConfig{"p": sc}); err != nil {
		t.Fatal(err)
	}
	for _, l := range edgeLines(file) {
		if strings.HasPrefix(l, "setLevel ") && strings.Contains(l, `"level":"debug"`) {
			return
		}
	}
	t.Fatalf("Start returned before the server was told level debug: %q", edgeLines(file))
}
