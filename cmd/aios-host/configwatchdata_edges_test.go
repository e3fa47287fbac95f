package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCheckDataNotAFolder: a running host's config edited so that
// data names a file (or a path beneath one) was logged as a change a
// restart applies, and the restart failed ("data: space: create root
// …: not a directory"); so did a data folder whose spaces or audit.jsonl,
// where spaces and audit.path leave them, cannot be used. The watch says
// so at once, with the file, line and key, unless run's --data replaces
// the file's data.
func TestConfigCheckDataNotAFolder(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "limits:\n  max_call_depth: 3\ndata: "+f+"\n")
	if err := checkConfigFile(cfg); err == nil || !strings.HasPrefix(err.Error(), cfg+":3: data: "+f+" is not a folder") {
		t.Errorf("data naming a file: got %v, want it named at %s:3", err, cfg)
	}
	if err := checkConfigFile(writeConfig(t, "data: "+f+"/sub\n")); err == nil || !strings.Contains(err.Error(), ":1: data: ") {
		t.Errorf("data beneath a file: got %v, want it named at line 1", err)
	}
	// With --data, run does not take the file's data.
	if err := checkConfig(cfg, runFlags{data: t.TempDir()}); err != nil {
		t.Errorf("data naming a file, run with --data: %v", err)
	}
	// The spaces and the log it holds.
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "spaces"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := checkConfigFile(writeConfig(t, "data: "+d+"\n")); err == nil || !strings.Contains(err.Error(), ":1: data: "+filepath.Join(d, "spaces")+" is not a folder") {
		t.Errorf("data whose spaces is a file: got %v", err)
	}
	if err := checkConfigFile(writeConfig(t, "data: "+d+"\nspaces: "+t.TempDir()+"\n")); err != nil {
		t.Errorf("data whose spaces is a file, spaces set elsewhere: %v", err)
	}
	d = t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "audit.jsonl"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := checkConfigFile(writeConfig(t, "data: "+d+"\n")); err == nil || !strings.Contains(err.Error(), ":1: data: audit: refusing to append to "+filepath.Join(d, "audit.jsonl")) {
		t.Errorf("data whose audit.jsonl is no audit log: got %v", err)
	}
	if err := checkConfigFile(writeConfig(t, "data: "+d+"\naudit:\n  disabled: true\n")); err != nil {
		t.Errorf("data whose audit.jsonl is no audit log, the log turned off: %v", err)
	}
	// A data folder not there yet, or a good one, passes.
	for _, p := range []string{filepath.Join(dir, "new"), t.TempDir()} {
		if err := checkConfigFile(writeConfig(t, "data: "+p+"\n")); err != nil {
			t.Errorf("data %s: %v", p, err)
		}
	}
}

// TestConfigCheckPluginsFile: a running host's config edited so that a
// plugins entry names a file (the plugin itself, not its folder) was
// logged as a change a restart applies, and the restart failed
// ("discovery: plugin folder … is a file, not a folder"), as
// discovery.dirs already was not. The watch says so at once, with the
// file, line and key, unless run's --plugins replaces the file's.
func TestConfigCheckPluginsFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "tool.js")
	if err := os.WriteFile(f, []byte("//\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "limits:\n  max_call_depth: 3\nplugins:\n  - "+dir+"\n  - "+f+"\n")
	if err := checkConfigFile(cfg); err == nil || !strings.HasPrefix(err.Error(), cfg+":5: plugins[1]: "+f+" is a file, not a folder") {
		t.Errorf("plugins naming a file: got %v, want it named at %s:5", err, cfg)
	}
	if err := checkConfig(cfg, runFlags{plugins: true}); err != nil {
		t.Errorf("plugins naming a file, run with --plugins: %v", err)
	}
	if err := checkConfigFile(writeConfig(t, "plugins: ["+dir+", "+filepath.Join(dir, "new")+"]\n")); err != nil {
		t.Errorf("plugin folders, one not there yet: %v", err)
	}
}

// TestConfigCheckSocketNotASocket: a running host's config edited so that
// server.socket names a folder or a file was logged as a change a restart
// applies, and the restart failed ("socket /tmp: exists and is not a
// socket (a folder): not replacing it"). The watch says so at once, with
// the file, line and key, unless run's --socket replaces it; a path with
// nothing there yet passes.
func TestConfigCheckSocketNotASocket(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, "limits:\n  max_call_depth: 3\nserver:\n  socket: "+dir+"\n")
	if err := checkConfigFile(cfg); err == nil || !strings.HasPrefix(err.Error(), cfg+":4: server.socket: "+dir+" exists and is not a socket (a folder)") {
		t.Errorf("server.socket naming a folder: got %v, want it named at %s:4", err, cfg)
	}
	if err := checkConfig(cfg, runFlags{socket: true}); err != nil {
		t.Errorf("server.socket naming a folder, run with --socket: %v", err)
	}
	if err := checkConfigFile(writeConfig(t, "server:\n  socket: "+filepath.Join(dir, "h.sock")+"\n")); err != nil {
		t.Errorf("server.socket with nothing there yet: %v", err)
	}
}
