package discovery

import (
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestSameIDWarningStatesVersionRule: of two plugin files of one trust
// and kind claiming one provider id, the higher adapter version serves
// (docs/discovery.md "Priority"), but the warning said "card > yaml >
// desktop, then the first path" while naming as serving b.fake (1.10.0),
// which is not the first path (a.fake, 1.9.0): the rule it gave did not
// explain what it did. It now gives the rule that chose: then the higher
// adapter version, then the first path.
func TestSameIDWarningStatesVersionRule(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	newEnvWith(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.same", Version: "1.9.0", Tools: []string{"st"}})
		writeFake(t, filepath.Join(dir, "b.fake"), fakeSpec{ID: "org.test.same", Version: "1.10.0", Tools: []string{"st"}})
	}, withLogs(logs))
	const warning = "several descriptions claim one provider id"
	if n := logLines(logs, warning, "b.fake", "then the higher adapter version, then the first path"); n != 1 {
		t.Fatalf("%d warnings naming b.fake as serving and the version rule, want 1:\n%s", n, logs.String())
	}
}
