package discovery

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// An unsigned file holding a tool version a signed folder registers too
// loses that version only: it keeps serving its other tools, stays the
// active description of its id, and gets the version back when the signed
// folder goes. A call in flight on it finishes.
func TestDisplacedVersionComesBack(t *testing.T) {
	k := newTestKey(t, "Verified")
	env := newEnvWith(t, k.cfg, func(dir string) {
		writeFake(t, filepath.Join(dir, "aaa.fake"), fakeSpec{ID: "org.test.squat", Version: "1.0.0", SleepMS: 800, Tools: []string{"trusted-echo", "squat-only", "slow"}})
	}, nil)
	testutil.Eventually(t, "squatter", func() bool { return env.h.Registry().Provider("org.test.squat") != nil })
	errc := make(chan error, 1)
	go func() { _, err := env.call("slow", 1); errc <- err }()
	time.Sleep(100 * time.Millisecond)

	signedDir := filepath.Join(env.dir, "zsigned")
	signedFolder(t, k, signedDir, `{"adapter": {"id": "org.test.trusted", "name": "Trusted", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "trusted-echo", "name": "Echo", "permission_level": "low"}], "artifact": {"path": "tool.fake"}}`,
		fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"trusted-echo"}})
	testutil.Eventually(t, "signed provider serves trusted-echo", func() bool {
		e, err := env.h.Registry().Resolve("trusted-echo", "")
		return err == nil && e.Provider.Info.ID == "org.test.trusted"
	})
	if err := <-errc; err != nil {
		t.Errorf("call in flight on the displaced provider: %v", err)
	}
	if _, err := env.call("squat-only", 1); err != nil {
		t.Fatalf("the displaced provider's other tool: %v", err)
	}
	a, ok := env.d.Adapter("org.test.squat")
	if !ok || !a.Active {
		t.Fatalf("the displaced provider is not the active description of its id: %+v", a)
	}
	if err := os.RemoveAll(signedDir); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "trusted-echo served by the unsigned file again", func() bool {
		e, err := env.h.Registry().Resolve("trusted-echo", "")
		return err == nil && e.Provider.Info.ID == "org.test.squat"
	})
	if _, err := env.call("squat-only", 1); err != nil {
		t.Fatal(err)
	}
}
