package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditVerifyDisabledLogSaysSo: with audit.disabled: true in the
// config no log is written, and audit verify and audit show said only
// "open DATA/audit.jsonl: no such file or directory", as if the log had
// been deleted: an operator looking for the trail learnt neither that the
// host writes none nor which setting turned it off. They say the log is
// turned off, naming the file and line that did it. A log left from
// before is still checked.
func TestAuditVerifyDisabledLogSaysSo(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("audit:\n  disabled: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"verify", "show"} {
		code, out, errs := e.run("", "audit", sub, "--config", cfg)
		if code != exitFail || out != "" || !strings.Contains(errs, "audit.disabled") || !strings.Contains(errs, cfg+":2") {
			t.Errorf("audit %s with the log turned off: exit %d, stdout %q, stderr %q", sub, code, out, errs)
		}
	}
	writeRotated(t, filepath.Join(e.data, "audit.jsonl"), 3, 0)
	if code, out, errs := e.run("", "audit", "verify", "--config", cfg); code != 0 || !strings.Contains(out, "3 records") {
		t.Errorf("audit verify of a log written before it was turned off: %d %q %q", code, out, errs)
	}
}
