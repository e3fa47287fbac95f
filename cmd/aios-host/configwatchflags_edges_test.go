package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConfigEditOfFlagKeysNoRestart: run with --data (or --plugins,
// --socket, --http, --engine, --wire) takes that setting from its command
// line, not from the file; an edit of only that key was logged at warn as
// "the configuration file changed: … restart it to apply the change", and
// a restart with the same command line applied nothing. It is said at info
// which flag replaces what changed; an edit of another key still asks for
// a restart.
func TestConfigEditOfFlagKeysNoRestart(t *testing.T) {
	old := configPollInterval
	configPollInterval = 10 * time.Millisecond
	t.Cleanup(func() { configPollInterval = old })
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "host.yaml")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(cfgPath+".tmp", []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(cfgPath+".tmp", cfgPath); err != nil {
			t.Fatal(err)
		}
	}
	const started = "data: /srv/a\nplugins: [/srv/p]\nlimits:\n  max_call_depth: 8\nruntimes:\n  js:\n    wire: msgpack\n"
	write(started)
	logs := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	flags := runFlags{data: filepath.Join(dir, "data"), plugins: true, wire: "json"}
	go func() {
		defer close(done)
		watchConfigFile(ctx, cfgPath, flags, []byte(started), slog.New(slog.NewTextHandler(logs, nil)))
	}()
	t.Cleanup(func() { cancel(); <-done })

	write("data: /srv/b\nplugins: [/srv/q]\nlimits:\n  max_call_depth: 8\nruntimes:\n  js:\n    wire: json\n")
	waitLogged(t, logs, "keys the command line replaces", 1)
	if s := logs.String(); strings.Contains(s, "restart it to apply") || !strings.Contains(s, "data (--data)") ||
		!strings.Contains(s, "plugins (--plugins)") || !strings.Contains(s, "runtimes.js.wire (--wire)") {
		t.Fatalf("an edit of keys the flags replace was not said to be so:\n%s", s)
	}
	write("data: /srv/b\nplugins: [/srv/q]\nlimits:\n  max_call_depth: 9\nruntimes:\n  js:\n    wire: json\n")
	waitLogged(t, logs, "restart it to apply", 1)
}

// TestConfigCheckTakesRunFlags: the check of an edited config file
// (would a restart load it?) ignored that --http, --wire and --engine
// replace server.http, runtimes.*.wire and runtimes.wasm.engine: a value
// there that run never reads under those flags was logged as "the
// configuration file was edited and now does not load … a restart would
// fail", which it would not. Checked with the flags, such an edit is one
// of keys the command line replaces; the same edit without the flags
// still does not load.
func TestConfigCheckTakesRunFlags(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "host.yaml")
	body := "server:\n  http: nonsense\nruntimes:\n  js:\n    wire: xml\n  python:\n    wire: xml\n"
	if err := os.WriteFile(cfgPath, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := checkConfig(cfgPath, runFlags{http: true, wire: "json", engine: "wazero"}); err != nil {
		t.Errorf("with --http, --wire and --engine: %v", err)
	}
	if err := checkConfig(cfgPath, runFlags{}); err == nil {
		t.Error("without the flags the file loaded")
	}
}
