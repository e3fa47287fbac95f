package discovery

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestSameTrustClaimWarned: two descriptions of the same trust level
// that claim one provider id (two folders whose index.ts or tool.py name
// no id, tools.js beside tools.py, one file copied into two plugin
// folders) used to leave the lexically second one shadowed without a word
// at any log level: its tools were simply missing. Discovery now warns,
// naming the one that serves and the others.
func TestSameTrustClaimWarned(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	env := newEnvWith(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.same", Version: "1.0.0", Tools: []string{"a-tool"}})
		writeFake(t, filepath.Join(dir, "b.fake"), fakeSpec{ID: "org.test.same", Version: "1.0.0", Tools: []string{"b-tool"}})
	}, withLogs(logs))
	testutil.Eventually(t, "both known", func() bool {
		n := 0
		for _, a := range env.d.Adapters() {
			if a.ID == "org.test.same" {
				n++
			}
		}
		return n == 2
	})
	if n := logLines(logs, "level=WARN", "org.test.same", "a.fake", "b.fake"); n != 1 {
		t.Fatalf("two equal-trust claims of one id warned about %d times, want once:\n%s", n, logs.String())
	}
	if !slices.ContainsFunc(env.d.Adapters(), func(a Adapter) bool { return a.Active && filepath.Base(a.Source) == "a.fake" }) {
		t.Fatalf("a.fake does not serve: %+v", env.d.Adapters())
	}
}
