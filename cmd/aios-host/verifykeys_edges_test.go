package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyConfigKeyErrorNamesConfig: `verify CARD` with the config's
// discovery.keys naming a key file that is not there failed "trusted key
// 1: stat keys/nope.jwks.json: no such file or directory": neither the
// configuration file nor the key it was read for (run says the same entry
// with its file, line and discovery.keys). verify now names them as run
// does.
func TestVerifyConfigKeyErrorNamesConfig(t *testing.T) {
	e := newEnv(t)
	signed, _ := signedDemoCard(t, e)
	dir := t.TempDir()
	card := filepath.Join(dir, "adapter.json")
	if err := os.WriteFile(card, []byte(signed), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "discovery:\n  keys:\n    - {trust: Verified, jwks: keys/nope.jwks.json}\n")
	code, out, errs := e.bare("--config", cfg, "verify", card)
	if code != 1 {
		t.Fatalf("verify with a missing key file: exit %d, %q %q; want 1", code, out, errs)
	}
	for _, want := range []string{cfg + ":3: discovery.keys[0]", filepath.Join(filepath.Dir(cfg), "keys", "nope.jwks.json")} {
		if !strings.Contains(errs, want) {
			t.Errorf("verify with a missing key file said %q; want it to name %q", errs, want)
		}
	}
}
