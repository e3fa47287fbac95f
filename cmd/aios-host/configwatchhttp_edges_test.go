package main

import (
	"strings"
	"testing"
)

// TestConfigCheckServerHTTPAddress: the running host's look at its edited
// configuration file did not check server.http, which run refuses before
// it loads anything when it is no host:port (server.http: 7700, a port
// without its colon): the edit was logged as a change a restart applies,
// and the restart then failed. It is now said at once, with the file, line
// and key, as run says it.
func TestConfigCheckServerHTTPAddress(t *testing.T) {
	cfg := writeConfig(t, "server:\n  http: \"7700\"\n")
	err := checkConfigFile(cfg)
	if err == nil {
		t.Fatal("server.http: 7700 passed the check that run fails")
	}
	if want := cfg + ":2: server.http: 7700: missing port in address"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %q, want it to start with %q", err, want)
	}
	if err := checkConfigFile(writeConfig(t, "server:\n  http: 127.0.0.1:7700\n")); err != nil {
		t.Errorf("server.http: 127.0.0.1:7700: %v", err)
	}
}
