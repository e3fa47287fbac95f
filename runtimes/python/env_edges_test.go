package python

import (
	"os"
	"path/filepath"
	"testing"

	pysdk "github.com/aios-host/aios-host/sdk/python"
)

// TestSDKCacheRepaired: a damaged file in the extracted SDK folder
// (a full disk during an earlier extraction, a stray edit, garbage in the
// user cache) is put right at the next start. Before, only the presence of
// _worker.py was checked: every Python plugin failed to load ("the python
// worker exited before registering") until someone found and deleted the
// cache folder.
func TestSDKCacheRepaired(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir, err := extractSDK()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"_worker.py", "__init__.py"} {
		want, err := pysdk.Files.ReadFile("aios_sdk/" + name)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "aios_sdk", name)
		if err := os.WriteFile(p, []byte("garbage(\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		again, err := extractSDK()
		if err != nil {
			t.Fatalf("extractSDK with a damaged %s: %v", name, err)
		}
		got, err := os.ReadFile(filepath.Join(again, "aios_sdk", name))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s after the next extractSDK: %q, %v; want the embedded file back", name, got, err)
		}
	}
	// A file removed is put back too.
	p := filepath.Join(dir, "aios_sdk", "_core.py")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := extractSDK(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("_core.py not put back: %v", err)
	}
}
