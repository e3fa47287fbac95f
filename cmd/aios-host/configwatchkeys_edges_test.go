package main

import (
	"strings"
	"testing"
)

// TestConfigCheckLoadsKeyFiles: the running host's look at its edited
// configuration file (checkConfigFile) decoded discovery but did not load
// its keys, so an edit adding a discovery.keys entry whose jwks file is not
// there was logged as a change a restart applies, and the restart then
// failed "discovery.keys: trusted key 1: stat …" (README "Configuration":
// such an edit is logged at error, as a restart would fail). The keys are
// now loaded as run loads them, and the error names the file, line and
// discovery.keys.
func TestConfigCheckLoadsKeyFiles(t *testing.T) {
	cfg := writeConfig(t, "discovery:\n  keys:\n    - {trust: Verified, jwks: keys/nope.jwks.json}\n")
	err := checkConfigFile(cfg)
	if err == nil {
		t.Fatal("a discovery.keys entry whose jwks file is not there passed the check that run fails")
	}
	if want := cfg + ":3: discovery.keys[0]"; !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "nope.jwks.json") {
		t.Errorf("got %q, want it to start with %q and name the key file", err, want)
	}
	// A key given inline or by URL loads without reading anything.
	ok := writeConfig(t, "discovery:\n  keys:\n    - {trust: Community, jwks_url: https://hub.example/.well-known/jwks.json}\n")
	if err := checkConfigFile(ok); err != nil {
		t.Errorf("a jwks_url key: %v", err)
	}
}
