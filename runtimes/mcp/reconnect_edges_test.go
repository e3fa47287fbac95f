package mcp

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestTinyReconnectMaxRefused: reconnect_max caps the wait between
// attempts to start (or reach) an MCP server, which begins at 100ms and
// doubles. One below 100ms (1ns, or 1ms written for 1m) was taken: the
// backoff fell to it after the first retry, so a server that fails at
// once (a command that exits) was started again about ten times a
// second for as long as the host ran, two warnings each time (189 lines
// in 12 s). It is now refused naming its line; 100ms and more are taken.
func TestTinyReconnectMaxRefused(t *testing.T) {
	for _, v := range []string{"1ns", "1ms", "99ms"} {
		cfg, err := config.Parse([]byte("mcp:\n  servers:\n    x:\n      command: /bin/true\n      reconnect_max: "+v+"\n"), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		want := "c.yaml:5: mcp.servers.x: reconnect_max " + v + " is below 100ms"
		if _, err := LoadConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("reconnect_max %s:\n got %v\nwant %s…", v, err, want)
		}
	}
	cfg, err := config.Parse([]byte("mcp:\n  servers:\n    x:\n      command: /bin/true\n      reconnect_max: 100ms\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc, err := LoadConfig(cfg); err != nil || sc["x"].ReconnectMax.String() != "100ms" {
		t.Errorf("reconnect_max 100ms: %v", err)
	}
}
