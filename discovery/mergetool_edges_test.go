package discovery

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestMergetoolCopiesIgnored: git mergetool writes the three sides of a
// conflicted file beside it (tool_BASE_1234.fake, tool_LOCAL_1234.fake,
// tool_REMOTE_1234.fake, and tool_BACKUP_1234.fake) while the merge is
// resolved. Each was loaded as a plugin: the other branch's code served
// when its version was higher. They are ignored as editors' temporaries.
func TestMergetoolCopiesIgnored(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "tool.fake"), fakeSpec{ID: "org.test.m", Version: "1.0.0", Tools: []string{"mine"}})
	})
	loads := env.load.loads.Load()
	var sides []string
	for _, side := range []string{"BACKUP", "BASE", "LOCAL", "REMOTE"} {
		p := filepath.Join(env.dir, "tool_"+side+"_4242.fake")
		sides = append(sides, p)
		writeFake(t, p, fakeSpec{ID: "org.test.m", Version: "1.1.0", Tools: []string{"side-" + side}})
	}
	writeFake(t, filepath.Join(env.dir, "y.fake"), fakeSpec{ID: "org.test.y", Version: "1.0.0", Tools: []string{"y"}})
	testutil.Eventually(t, "y served", func() bool { return env.h.Registry().Provider("org.test.y") != nil })
	if got := toolNames(env, "org.test.m"); !slices.Equal(got, []string{"mine"}) {
		t.Errorf("during the merge org.test.m serves %v, want [mine]", got)
	}
	for _, p := range sides {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if n := env.load.loads.Load() - loads; n != 1 {
		t.Errorf("%d loads while the merge's copies were there, want 1 (y)", n)
	}
	if !ignored("tool_REMOTE_12.py") || ignored("tool_REMOTE.py") || ignored("my_BASE_tool.py") {
		t.Error("ignored() takes mergetool's copies, and only them")
	}
}
