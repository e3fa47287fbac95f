package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRuntimeOverridesUnmatchedWarned: the per-provider keys of the
// runtime sections, runtimes.wasm.providers (by provider id or a .wasm
// file's name without the extension) and runtimes.js.provider_budgets_mib
// (by id), were never compared with what the host serves: a misspelt one
// left its provider on the runtime's defaults without a word, where a
// misspelt providers.<id> is warned of at start. They are warned of alike;
// one naming a served provider by id or by file name is not.
func TestRuntimeOverridesUnmatchedWarned(t *testing.T) {
	e := newEnv(t)
	b, err := os.ReadFile(filepath.Join("..", "..", "samples", "plugins", "c-echo.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.plugins, "c-echo.wasm"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	src := `runtimes:
  wasm:
    providers:
      c-ecoh: {pool_size: 2}
      c-echo: {pool_size: 3}
      org.aios.samples.c-echo: {memory_limit_pages: 100}
  js:
    provider_budgets_mib: {org.aios.samples.c-ech: 64, org.aios.samples.complexity: 64}
`
	if err := os.WriteFile(cfg, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.startRun("aios-host serving", "--config", cfg)
	r.stop()
	log := r.stderr.String()
	for _, want := range []string{
		`runtimes.wasm.providers.c-ecoh names no provider the host serves, so it applies to nothing (a provider loaded later still gets it); did you mean \"c-echo\"?`,
		`runtimes.js.provider_budgets_mib[\"org.aios.samples.c-ech\"] names no provider the host serves, so it applies to nothing (a provider loaded later still gets it); did you mean \"org.aios.samples.c-echo\"?`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	for _, not := range []string{"runtimes.wasm.providers.c-echo names", `runtimes.wasm.providers[\"org.aios.samples.c-echo\"] names`, `provider_budgets_mib[\"org.aios.samples.complexity\"] names`} {
		if strings.Contains(log, not) {
			t.Errorf("log warns about %s, which names a served provider:\n%s", not, log)
		}
	}
}
