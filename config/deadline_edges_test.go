package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxDeadlineBelowDefaultNamesTheKeyWritten: a file setting only
// limits.max_deadline below the 30 s default_deadline was refused as
// "config.yaml:1: limits.default_deadline: 30s is longer than
// limits.max_deadline (1s)": a key the user never wrote, on the line of
// limits:, without saying 30 s is its default (found by p114). The error
// names max_deadline on its own line, the default it is below, and that
// default_deadline must be lowered too; with both keys written it still
// names default_deadline.
func TestMaxDeadlineBelowDefaultNamesTheKeyWritten(t *testing.T) {
	dir := t.TempDir()
	load := func(body string) string {
		t.Helper()
		p := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p)
		if err == nil {
			t.Fatalf("%q loaded; want it refused", body)
		}
		return err.Error()
	}
	msg := load("data: /tmp/x\nlimits:\n  max_deadline: 1s\n")
	for _, want := range []string{"config.yaml:3: limits.max_deadline", "default", "30s", "default_deadline"} {
		if !strings.Contains(msg, want) {
			t.Errorf("only max_deadline written: %q does not say %q", msg, want)
		}
	}
	msg = load("data: /tmp/x\nlimits:\n  max_deadline: 1s\n  default_deadline: 5s\n")
	if !strings.Contains(msg, "config.yaml:4: limits.default_deadline: 5s is longer than limits.max_deadline (1s)") {
		t.Errorf("both written: %q", msg)
	}
}
