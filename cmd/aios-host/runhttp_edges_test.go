package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunHTTPAddressBadValueIsUsage: run --http with a value that is no
// host:port (7700 without its colon, a port past 65535) exited 1, as a
// port in use does, where a bad value of --wire or --engine is a usage
// error (exit 2). It is a usage error naming the flag, the value and what
// to write, before anything loads.
func TestRunHTTPAddressBadValueIsUsage(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ addr, want string }{
		{"7700", `--http 7700: missing port in address: want host:port, e.g. 127.0.0.1:7700 or :7700`},
		{"127.0.0.1:99999", `--http 127.0.0.1:99999: port "99999": want a number from 0 to 65535`},
		{":seven", `--http :seven: port "seven": want a number from 0 to 65535`},
	} {
		code, out, errs := e.run("", "run", "--http", tc.addr)
		if code != exitUsage || out != "" || !strings.HasPrefix(errs, "aios-host: "+tc.want) {
			t.Errorf("--http %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.addr, code, out, errs, tc.want)
		}
		if strings.Contains(errs, "loaded") {
			t.Errorf("--http %q: providers were loaded first:\n%s", tc.addr, errs)
		}
	}
}

// TestRunHTTPAddressFromConfigSaysWhatToWrite: server.http: 7700 in the
// config failed with Go's "listen tcp: address 7700: missing port in
// address", where --http 7700 says what to write (found by p116). The
// config's value gets the same words, at its file and line.
func TestRunHTTPAddressFromConfigSaysWhatToWrite(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(t.TempDir(), "host.yaml")
	if err := os.WriteFile(cfg, []byte("server:\n  http: \"7700\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.run("", "--config", cfg, "run")
	want := cfg + ":2: server.http: 7700: missing port in address: want host:port, e.g. 127.0.0.1:7700 or :7700"
	if code == exitOK || !strings.Contains(errs, want) {
		t.Fatalf("exit %d, stderr %q; want %q", code, errs, want)
	}
	if strings.Contains(errs, "loaded") {
		t.Errorf("providers were loaded first:\n%s", errs)
	}
}
