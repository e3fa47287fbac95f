package discovery

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// vimSave saves data to path as vim does with 'backupcopy' off: a 4913
// probe file made and removed, a swap file, the original renamed to a
// backup (path~), the new content written in two steps, the backup removed.
func vimSave(t *testing.T, path string, data []byte) {
	t.Helper()
	dir := filepath.Dir(path)
	steps := []func() error{
		func() error { return os.WriteFile(filepath.Join(dir, "4913"), nil, 0o644) },
		func() error { return os.Remove(filepath.Join(dir, "4913")) },
		func() error {
			return os.WriteFile(filepath.Join(dir, "."+filepath.Base(path)+".swp"), []byte("swap"), 0o644)
		},
		func() error { return os.Rename(path, path+"~") },
		func() error { return os.WriteFile(path, data[:len(data)/2], 0o644) },
		func() error {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return err
			}
			_, err = f.Write(data[len(data)/2:])
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		},
		func() error { return os.Remove(path + "~") },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestVimSaveCycleConverges (no defect): thirty vim saves of a plugin
// file at a folder's top and of one in a provider folder each end with
// the saved version served, no error kept, and no goroutine, fd or
// inotify watch more than before.
func TestVimSaveCycleConverges(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "x.fake"), fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{"x0"}})
		writeFake(t, filepath.Join(dir, "pkg", "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"p0"}})
	})
	before, w0 := testutil.TakeResources(), inotifyWatches()
	for i := 1; i <= 30; i++ {
		x, _ := json.Marshal(fakeSpec{ID: "org.test.x", Version: "1.0.0", Tools: []string{fmt.Sprint("x", i)}})
		vimSave(t, filepath.Join(env.dir, "x.fake"), x)
		p, _ := json.Marshal(fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{fmt.Sprint("p", i)}})
		vimSave(t, filepath.Join(env.dir, "pkg", "tool.fake"), p)
		wx, wp := fmt.Sprint("x", i), fmt.Sprint("p", i)
		testutil.Eventually(t, fmt.Sprintf("save %d served", i), func() bool {
			return slices.Equal(toolNames(env, "org.test.x"), []string{wx}) && slices.Equal(toolNames(env, "org.test.p"), []string{wp})
		})
	}
	testutil.Eventually(t, "no error kept", func() bool { return len(env.d.Errors()) == 0 })
	testutil.Eventually(t, "two providers open", func() bool { return len(env.load.open()) == 2 })
	after := testutil.Settle(before.Goroutines, 30*time.Second)
	if after.Goroutines > before.Goroutines+2 || after.FDs > before.FDs+2 || inotifyWatches() > w0 {
		t.Errorf("after 30 saves: %v (before %v), inotify watches %d (before %d)", after, before, inotifyWatches(), w0)
	}
}

// TestHundredFilesDroppedAndRemoved (no defect): 100 plugin files
// dropped into the folder at once are all served, and all go when they
// are removed at once.
func TestHundredFilesDroppedAndRemoved(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", nil)
	for i := 0; i < 100; i++ {
		writeFake(t, filepath.Join(env.dir, fmt.Sprintf("p%03d.fake", i)), fakeSpec{ID: fmt.Sprintf("org.test.p%d", i), Version: "1.0.0", Tools: []string{fmt.Sprintf("p%d", i)}})
	}
	testutil.Eventually(t, "100 providers", func() bool { return len(env.h.Registry().Providers()) == 100 })
	for i := 0; i < 100; i++ {
		if err := os.Remove(filepath.Join(env.dir, fmt.Sprintf("p%03d.fake", i))); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, "no provider left", func() bool {
		return len(env.h.Registry().Providers()) == 0 && len(env.load.open()) == 0
	})
}

// TestSwitchedLinkCallsNeverFail (no defect): calls to a tool whose
// provider folder link is switched to the next release, ten times under
// six callers, all succeed and are answered by one of the releases. (The
// switches upgrade: a call resolved at 1.0.1 and reaching its provider as
// it closed is not handed to an older 1.0.0 by design — bind.go's
// versionBreaks —, which a test switching back and forth between two
// releases met once in a while and failed.)
func TestSwitchedLinkCallsNeverFail(t *testing.T) {
	var releases string
	env := newEnv(t, "debounce: 10ms\n", func(dir string) {
		releases = filepath.Join(filepath.Dir(dir), "releases")
		for i := 0; i <= 10; i++ {
			writeFake(t, filepath.Join(releases, fmt.Sprint("v", i), "tool.fake"), fakeSpec{ID: "org.test.s", Version: fmt.Sprintf("1.0.%d", i), Tools: []string{"slow"}, SleepMS: 30})
		}
		if err := os.Symlink(filepath.Join(releases, "v0"), filepath.Join(dir, "current")); err != nil {
			t.Fatal(err)
		}
	})
	var calls, fails, wrong atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := 0; c < 6; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				v, err := env.h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "slow", Params: map[string]any{"value": 1}})
				calls.Add(1)
				if err != nil {
					fails.Add(1)
					t.Errorf("call during a switch: %v", err)
					continue
				}
				if m, _ := v.(map[string]any); !strings.HasPrefix(fmt.Sprint(m["version"]), "1.0.") {
					wrong.Add(1)
					t.Errorf("answered by %v", v)
				}
			}
		}()
	}
	served := func() string {
		e, err := env.h.Registry().Resolve("slow", "")
		if err != nil {
			return ""
		}
		return e.Def.Version
	}
	for i := 1; i <= 10; i++ {
		switchLink(t, filepath.Join(releases, fmt.Sprint("v", i)), filepath.Join(env.dir, "current"))
		want := fmt.Sprintf("1.0.%d", i)
		testutil.Eventually(t, "release "+want+" served", func() bool { return served() == want })
		n := calls.Load()
		testutil.Eventually(t, "calls made on it", func() bool { return calls.Load() > n+6 })
	}
	close(stop)
	wg.Wait()
	if fails.Load() > 0 || wrong.Load() > 0 {
		t.Errorf("%d of %d calls failed, %d answered by another provider", fails.Load(), calls.Load(), wrong.Load())
	}
}
