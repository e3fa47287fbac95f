package mcp

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestTinyConnectTimeoutRefused: connect_timeout: 1ms (1m meant, or
// 1ns) was taken, and no server can start and answer initialize within
// it: every attempt timed out, the server was started again and again
// with backoff for good, and its tools were never imported, the log
// saying only that it did not finish initialize. Below 100ms is refused,
// naming the file, line and key, as reconnect_max is.
func TestTinyConnectTimeoutRefused(t *testing.T) {
	for _, v := range []string{"1ns", "1ms", "99ms"} {
		cfg, err := config.Parse([]byte("mcp:\n  servers:\n    x:\n      command: /bin/true\n      connect_timeout: "+v+"\n"), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		want := "c.yaml:5: mcp.servers.x: connect_timeout " + v + " is below 100ms"
		if _, err := LoadConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("connect_timeout %s:\n got %v\nwant %s…", v, err, want)
		}
	}
	cfg, err := config.Parse([]byte("mcp:\n  servers:\n    x:\n      command: /bin/true\n      connect_timeout: 100ms\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc, err := LoadConfig(cfg); err != nil || sc["x"].ConnectTimeout.String() != "100ms" {
		t.Errorf("connect_timeout 100ms: %v", err)
	}
}
