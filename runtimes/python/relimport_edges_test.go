package python_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestRelativeImportSaysHow: a tool file (or a module of its folder) that
// imports a module of its folder relatively, "from . import helpers" or
// "from .helpers import f", as in a package, failed the load with
// Python's "attempted relative import with no known parent package",
// which did not say that the folder's modules are imported by name.
func TestRelativeImportSaysHow(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.PoolSize = 1 }))
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"tool-file", map[string]string{
			"helpers.py": "Y = 2\n",
			"t.py":       "from .helpers import Y\nfrom aios_sdk import tool\n@tool\ndef ok(params): return {'ok': Y}\n",
		}, "t.py:1: ImportError while loading: attempted relative import with no known parent package"},
		{"helper-module", map[string]string{
			"other.py":   "Z = 3\n",
			"helpers.py": "from . import other\n",
			"t.py":       "import helpers\nfrom aios_sdk import tool\n@tool\ndef ok(params): return {'ok': 1}\n",
		}, "t.py:1: ImportError while loading: attempted relative import with no known parent package (at helpers.py:1)"},
	} {
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for n, s := range c.files {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err := h.LoadFile(context.Background(), filepath.Join(dir, "t.py"), host.ProviderMeta{Source: "t.py", Trust: abi.System, Unit: dir})
		if err == nil {
			t.Fatalf("%s: loaded", c.name)
		}
		for _, s := range []string{c.want, "modules of the tool's folder are imported by name, not relatively", "import helpers"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %v\nwant it to contain %q", c.name, err, s)
			}
		}
	}
}
