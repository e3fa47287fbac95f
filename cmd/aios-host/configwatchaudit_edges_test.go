package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCheckAuditPathNotAFile: the running host's look at its edited
// configuration file did not look at audit.path, which run opens before it
// loads anything and refuses when it names a folder (or a device, a FIFO):
// an edit setting audit.path to a folder was logged as a change a restart
// applies, and the restart then failed ("audit.path: … is not a regular
// file (a folder)"). It is now said at once, with the file, line and key.
func TestConfigCheckAuditPathNotAFile(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, "audit:\n  max_files: 0\n  path: "+dir+"\n")
	err := checkConfigFile(cfg)
	if err == nil {
		t.Fatal("audit.path naming a folder passed the check that run fails")
	}
	if want := cfg + ":3: audit.path: " + dir + " is not a regular file (a folder)"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %q, want it to start with %q", err, want)
	}
	// Under a file, it cannot be made.
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err = checkConfigFile(writeConfig(t, "audit:\n  path: "+f+"/audit.jsonl\n"))
	if err == nil || !strings.Contains(err.Error(), ":2: audit.path: ") {
		t.Errorf("audit.path under a file: got %v, want it named at line 2", err)
	}
	// A log not there yet, or a regular file, is fine; so is a folder
	// when the log is turned off.
	for _, body := range []string{
		"audit:\n  path: " + filepath.Join(dir, "new", "audit.jsonl") + "\n",
		"audit:\n  path: " + f + "\n",
		"audit:\n  disabled: true\n  path: " + dir + "\n",
	} {
		if err := checkConfigFile(writeConfig(t, body)); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// TestConfigCheckSpacesNotAFolder: the same look left out spaces, which run
// opens before it loads anything and refuses when it names a file (or a
// path beneath one): the edit was logged as a change a restart applies,
// and the restart failed. It is said at once, with the file, line and key.
func TestConfigCheckSpacesNotAFolder(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{f, f + "/spaces"} {
		cfg := writeConfig(t, "default_agent: cli\nspaces: "+p+"\n")
		err := checkConfigFile(cfg)
		if err == nil || !strings.HasPrefix(err.Error(), cfg+":2: spaces: ") {
			t.Errorf("spaces: %s: got %v, want it named at line 2", p, err)
		}
	}
	if err := checkConfigFile(writeConfig(t, "spaces: "+filepath.Join(filepath.Dir(f), "new", "spaces")+"\n")); err != nil {
		t.Errorf("spaces not made yet: %v", err)
	}
}

// TestConfigCheckDiscoveryDirsFile: the same look left out that run
// refuses a file given as a folder of discovery.dirs or
// discovery.desktop_dirs; the edit was logged as a change a restart
// applies, and the restart failed. It is said at once, with the line and key.
func TestConfigCheckDiscoveryDirsFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "tool.aios.yaml")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"dirs", "desktop_dirs"} {
		cfg := writeConfig(t, "discovery:\n  "+key+":\n    - "+dir+"\n    - "+f+"\n")
		err := checkConfigFile(cfg)
		if err == nil || !strings.HasPrefix(err.Error(), cfg+":4: discovery."+key+"[1]: ") || !strings.Contains(err.Error(), "is a file, not a folder") {
			t.Errorf("discovery.%s naming a file: got %v, want it named at line 4", key, err)
		}
	}
	if err := checkConfigFile(writeConfig(t, "discovery:\n  dirs: ["+dir+", "+filepath.Join(dir, "not-yet")+"]\n")); err != nil {
		t.Errorf("discovery.dirs of folders: %v", err)
	}
}
