package discovery

import (
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestTypeDeclarationNotTakenForNearMiss: a CommonJS TypeScript
// declaration file (types.d.cts, as tsc writes beside a .cts) at the top
// of a plugin folder was warned about as a tool saved under the wrong
// extension, "rename it to .ts", advice that would make a file of types a
// plugin that fails to load. A declaration file holds no code
// (host.IsTypeDeclaration): it is said at Info like any file no loader
// takes.
func TestTypeDeclarationNotTakenForNearMiss(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	env := newEnvWith(t, "", func(dir string) {
		writeFile(t, filepath.Join(dir, "types.d.cts"), "export declare const n: number;\n")
		writeFile(t, filepath.Join(dir, "words.cts"), "aios.registerTool({ name: 'w' }, () => 1);\n")
	}, withLogs(logs))
	testutil.Eventually(t, "both files said", func() bool {
		return logLines(logs, "types.d.cts") >= 1 && logLines(logs, "words.cts") >= 1
	})
	if n := logLines(logs, "rename it to", "file="+filepath.Join(env.dir, "types.d.cts")); n != 0 {
		t.Errorf("types.d.cts was told to be renamed:\n%s", logs.String())
	}
	if n := logLines(logs, "level=WARN", "rename it to .ts", "file="+filepath.Join(env.dir, "words.cts")); n != 1 {
		t.Errorf("words.cts was told %d times to be renamed, want once:\n%s", n, logs.String())
	}
}
