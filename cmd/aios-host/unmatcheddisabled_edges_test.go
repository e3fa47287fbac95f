package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMisspeltDisabledProviderWarned: providers.<id>.disabled with a
// misspelt id disabled nothing, and said nothing: a disabled entry was
// never warned of, taken for one whose provider had been skipped. The
// provider meant was served all the same. An entry whose provider the host
// found and skipped (a built-in one here) is still not warned of.
func TestMisspeltDisabledProviderWarned(t *testing.T) {
	e := newEnv(t)
	b, err := os.ReadFile(filepath.Join("..", "..", "samples", "plugins", "c-echo.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.plugins, "c-echo.wasm"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	src := "providers:\n  org.aios.samples.c-ecoh: {disabled: true}\n  org.aios.samples.complexity: {disabled: true}\n"
	if err := os.WriteFile(cfg, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.startRun("aios-host serving", "--config", cfg)
	r.stop()
	log := r.stderr.String()
	want := `providers[\"org.aios.samples.c-ecoh\"] is disabled, but names no provider the host found, so it disables nothing (a provider loaded later is disabled); did you mean \"org.aios.samples.c-echo\"?`
	if !strings.Contains(log, want) {
		t.Errorf("log lacks %s:\n%s", want, log)
	}
	if strings.Contains(log, `providers[\"org.aios.samples.complexity\"] is disabled, but`) {
		t.Errorf("a provider found and disabled was warned of:\n%s", log)
	}
}
