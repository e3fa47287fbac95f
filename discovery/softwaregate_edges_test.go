package discovery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestMissingSoftwareRefusesCalls: docs/discovery.md says an adapter whose
// card's requirements.software is not installed keeps its tools
// registered but answers calls Unavailable (search and info say
// unavailable); the calls ran as if it were installed (found by p120).
// They are refused naming the adapter, the software and why, and served
// once the software is there, without a reload.
func TestMissingSoftwareRefusesCalls(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "needed-app")
	card := `{"adapter": {"id": "org.test.needs", "name": "N", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"},
  "requirements": {"software": {"name": "Needed App", "detection": {"executable": "` + exe + `"}}}}`
	env := newEnv(t, "watch: false\n", func(dir string) {
		writeFile(t, filepath.Join(dir, "needs", "adapter.json"), card)
		writeFake(t, filepath.Join(dir, "needs", "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"needs-tool"}})
	})
	if env.h.Registry().Provider("org.test.needs") == nil {
		t.Fatalf("not registered: %v", env.d.Errors())
	}
	_, err := env.call("needs-tool", 1)
	if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "org.test.needs") || !strings.Contains(err.Error(), "Needed App") || !strings.Contains(err.Error(), exe) {
		t.Fatalf("a call while the software is missing: %v", err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "served once the software is installed", func() bool {
		m, err := env.call("needs-tool", 2)
		return err == nil && m != nil
	})
}
