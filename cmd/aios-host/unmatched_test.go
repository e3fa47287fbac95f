package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnmatchedSettingsWarned: a providers.<id> or rate_limits.per_tool key
// naming nothing the host serves (a misspelt id or tool name) is a warning
// at start, with the closest served name; a matching key, a disabled
// provider and a pattern that matches a tool are not.
func TestUnmatchedSettingsWarned(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	src := `providers:
  org.aios.samples.complexty: {trust: Verified}
  org.aios.samples.complexity: {rate: {per_second: 10}}
  org.example.off: {disabled: true}
  org.example.elsewhere: {trust: Community}
rate_limits:
  per_tool:
    analyze-complexty: {per_second: 5}
    analyze-complexity: {per_second: 5}
    "analyze-*": {per_second: 5}
    "resize-*": {per_second: 5}
`
	if err := os.WriteFile(cfg, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.startRun("aios-host serving", "--config", cfg)
	r.stop()
	log := r.stderr.String()
	for _, want := range []string{
		`providers[\"org.aios.samples.complexty\"] names no provider the host serves, so it applies to nothing (a provider loaded later still gets it); did you mean \"org.aios.samples.complexity\"?`,
		`providers[\"org.example.elsewhere\"] names no provider the host serves`,
		`rate_limits.per_tool.analyze-complexty names no tool the host serves, so it applies to nothing (a tool loaded later still gets it); did you mean \"analyze-complexity\"?`,
		`rate_limits.per_tool[\"resize-*\"] names no tool`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	for _, not := range []string{`providers[\"org.aios.samples.complexity\"] names`, "org.example.off", `rate_limits.per_tool.analyze-complexity names`, `rate_limits.per_tool[\"analyze-*\"]`} {
		if strings.Contains(log, not) {
			t.Errorf("log warns about %s, which matches or is disabled:\n%s", not, log)
		}
	}
}
