package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustFolderOfDiscoveryDir: a trust.folders entry naming a
// discovery.dirs folder gives its cards that level (an unsigned card there
// may reach the network at Verified), yet the host warned that the entry
// "gives no provider its level". The warning is for entries that have no
// effect only.
func TestTrustFolderOfDiscoveryDir(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	cards := filepath.Join(dir, "cards")
	if err := os.MkdirAll(cards, 0o755); err != nil {
		t.Fatal(err)
	}
	card := `{"adapter":{"id":"org.example.far","name":"Far","version":"1.0.0","protocol_version":"0.3.0"},"capabilities":{},
 "skills":[{"id":"far-op","name":"Op","permission_level":"low"}],"endpoints":{"rpc":"http://127.0.0.1:1/rpc"}}`
	if err := os.WriteFile(filepath.Join(cards, "far.adapter.json"), []byte(card), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.yaml")
	doc := "plugins: [" + e.plugins + "]\ndata: " + e.data + "\naudit: {disabled: true}\n" +
		"trust:\n  folders: {" + cards + ": Verified, " + filepath.Join(dir, "nowhere") + ": Verified}\n" +
		"discovery:\n  dirs: [" + cards + "]\n  desktop_dirs: []\n"
	if err := os.WriteFile(cfg, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.bare("list", "--config", cfg)
	if code != 0 {
		t.Fatalf("list: %d %s", code, errs)
	}
	if !strings.Contains(out, "far-op") {
		t.Fatalf("the card of the vouched-for folder was not loaded at Verified:\n%s\n%s", out, errs)
	}
	for _, l := range strings.Split(errs, "\n") {
		if strings.Contains(l, "gives no provider its level") && strings.Contains(l, "folder="+cards+" ") {
			t.Errorf("warned that the entry has no effect, though its card loaded at its level: %s", l)
		}
	}
	if !strings.Contains(errs, "folder="+filepath.Join(dir, "nowhere")) {
		t.Errorf("an entry that names no folder the host reads is no longer warned of:\n%s", errs)
	}
}
