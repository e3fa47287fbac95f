package discovery

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsnotify/fsnotify"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestCopiesWarnedLinearly: n files claiming one provider id (a
// plugin copied n times into a folder, the operator's mistake the warning
// is for) were warned about once per file the initial scan applied, each
// warning listing every claim so far: n−1 lines of up to n paths, 1.1 MB
// of log for 200 copies of a WASM sample in a probe, 25 MB for 1000. The
// initial scan (and a refresh) now warns once per id, after it applied
// every unit, and a warning lists at most maxClaimsListed claims and how
// many more there are, so copies added one by one while the host runs cost
// a bounded line each.
func TestCopiesWarnedLinearly(t *testing.T) {
	const n = 40
	logs := &testutil.SyncBuffer{}
	env := newEnvWith(t, "", func(dir string) {
		for i := range n {
			writeFake(t, filepath.Join(dir, fmt.Sprintf("copy%02d.fake", i)), fakeSpec{ID: "org.test.copied", Version: "1.0.0", Tools: []string{"copied"}})
		}
	}, withLogs(logs))
	const warning = "several descriptions claim one provider id"
	if got := logLines(logs, warning); got != 1 {
		t.Fatalf("the initial scan of %d copies warned %d times, want once:\n%s", n, got, logs.String())
	}
	checkLines := func(when string) {
		t.Helper()
		for _, l := range strings.Split(logs.String(), "\n") {
			if !strings.Contains(l, warning) {
				continue
			}
			if c := strings.Count(l, ".fake ("); c > maxClaimsListed {
				t.Fatalf("%s: a warning lists %d claims, want at most %d: %.400s…", when, c, maxClaimsListed, l)
			}
			if !strings.Contains(l, "copy00.fake") {
				t.Fatalf("%s: the warning does not name the serving file copy00.fake: %.400s…", when, l)
			}
		}
	}
	checkLines("initial scan")
	if !strings.Contains(logs.String(), fmt.Sprintf("%d more", n-maxClaimsListed)) {
		t.Fatalf("the warning does not say how many claims it leaves out:\n%.2000s", logs.String())
	}

	// Copies added while the host runs are warned about as they come, each
	// warning bounded.
	for i := n; i < n+10; i++ {
		writeFake(t, filepath.Join(env.dir, fmt.Sprintf("copy%02d.fake", i)), fakeSpec{ID: "org.test.copied", Version: "1.0.0", Tools: []string{"copied"}})
	}
	testutil.Eventually(t, "every copy known", func() bool {
		k := 0
		for _, a := range env.d.Adapters() {
			if a.ID == "org.test.copied" {
				k++
			}
		}
		return k == n+10
	})
	testutil.Eventually(t, "the last copy warned about", func() bool {
		return slices.ContainsFunc(strings.Split(logs.String(), "\n"), func(l string) bool {
			return strings.Contains(l, warning) && strings.Contains(l, fmt.Sprintf("%d more", n+10-maxClaimsListed))
		})
	})
	checkLines("hot adds")
}

// TestWatchOverflowRescans: when more changes come at once than the
// kernel queues for a watch (inotify's max_queued_events, 16384 by
// default: an operator copying thousands of files into a plugin folder, or
// rewriting them while the event loop is busy), fsnotify reports
// ErrEventOverflow and the events past the queue are lost. Discovery only
// logged "folder watch error" and went on: the plugins whose events were
// lost were never loaded (a probe: 11 of 20 JS files dropped among 40 000
// rewritten files never served, until a refresh or a restart). It rescans
// every folder now. The test loses the events of one file by taking the
// folder's watch away while the file is written, then reports the
// overflow as fsnotify would.
func TestWatchOverflowRescans(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	env := newEnvWith(t, "debounce: 10ms\n", nil, withLogs(logs))
	writeFake(t, filepath.Join(env.dir, "seen.fake"), fakeSpec{ID: "org.test.seen", Version: "1.0.0", Tools: []string{"seen"}})
	testutil.Eventually(t, "seen.fake served", func() bool { return env.h.Registry().Provider("org.test.seen") != nil })

	if err := env.d.watcher.Remove(env.dir); err != nil {
		t.Fatal(err)
	}
	writeFake(t, filepath.Join(env.dir, "lost.fake"), fakeSpec{ID: "org.test.lost", Version: "1.0.0", Tools: []string{"lost"}})
	if err := os.Remove(filepath.Join(env.dir, "seen.fake")); err != nil {
		t.Fatal(err)
	}
	if err := env.d.watcher.Add(env.dir); err != nil {
		t.Fatal(err)
	}
	env.d.watcher.Errors <- fsnotify.ErrEventOverflow

	testutil.Eventually(t, "the file whose events were lost served, the removed one gone", func() bool {
		return env.h.Registry().Provider("org.test.lost") != nil && env.h.Registry().Provider("org.test.seen") == nil
	})
	if !strings.Contains(logs.String(), "rescanning") {
		t.Fatalf("the overflow is not logged as a rescan:\n%s", logs.String())
	}
}

// TestForgetNotesNotQuadratic: every watch event (any file written in
// a plugin folder) forgot what was noted about its path by going through
// every note: one per file at the top of a plugin folder that no loader
// takes, so with 40 000 data files beside the plugins each event cost
// 40 000 map entries, rewriting them took the event loop 16 s of CPU, and
// the kernel's queue for the watch overflowed meanwhile. It looks only at
// the path, its folder and what is noted under the path now.
func TestForgetNotesNotQuadratic(t *testing.T) {
	root := t.TempDir()
	measure := func(n int) int {
		d := &Discovery{log: slog.New(slog.DiscardHandler), notes: map[string]string{}}
		for i := range n {
			d.note(slog.LevelInfo, filepath.Join(root, fmt.Sprintf("data%d.txt", i)), "no loader", "not loaded")
		}
		for i := range n {
			d.forgetNotes(filepath.Join(root, fmt.Sprintf("data%d.txt", i)), false)
			d.forgetNotes(filepath.Join(root, fmt.Sprintf("new%d.js", i)), false)
		}
		if len(d.notes) != 0 {
			t.Fatalf("%d notes left", len(d.notes))
		}
		return d.notesWork
	}
	const n = 500
	w1, w8 := measure(n), measure(8*n)
	t.Logf("n=%d: %d entries looked at; 8n: %d (×%.1f)", n, w1, w8, float64(w8)/float64(w1))
	if w8 > 16*w1 {
		t.Fatalf("8× the notes cost %.1f× the work: quadratic", float64(w8)/float64(w1))
	}

	// What is forgotten: the path, what is under it, its folder's note;
	// nothing else.
	d := &Discovery{log: slog.New(slog.DiscardHandler), notes: map[string]string{}}
	for _, p := range []string{"a", "a/x", "a/sub", "a/sub/y", "a/deep/er/z", "ab", "b", "b/z"} {
		d.note(slog.LevelInfo, filepath.Join(root, p), "r", "m")
	}
	d.forgetNotes(filepath.Join(root, "a"), false)
	d.forgetNotes(filepath.Join(root, "b", "new"), false)
	var left []string
	for p := range d.notes {
		rel, _ := filepath.Rel(root, p)
		left = append(left, rel)
	}
	slices.Sort(left)
	if want := []string{"ab", "b/z"}; !slices.Equal(left, want) {
		t.Fatalf("notes left %v, want %v", left, want)
	}
	d.forgetNotes(filepath.Join(root, "b", "z"), false)
	d.forgetNotes(filepath.Join(root, "ab"), false)
	if len(d.notes) != 0 || len(d.noteKids) != 0 {
		t.Fatalf("after every note was forgotten: notes %v, index %v", d.notes, d.noteKids)
	}
}
