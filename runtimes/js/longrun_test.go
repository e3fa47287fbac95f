package js

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// rssKiB is the resident set of process pid in KiB (Linux).
func rssKiB(t *testing.T, pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Skip("no VmRSS")
	return 0
}

// TestBundlerBoundedOverRewrites: the bundler process lives as long
// as loads keep coming (it exits after 30 s idle): a developer saving a
// TypeScript plugin every few seconds for hours keeps one process. Its
// memory must not grow with the number of files it bundled.
func TestBundlerBoundedOverRewrites(t *testing.T) {
	r := New(Options{})
	defer r.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "plugin.ts")
	bundle := func(i int) {
		src := fmt.Sprintf(`// version %d
interface P%d { a: number; b: string }
const big%d: string[] = [%s];
aios.registerTool({ name: 'churn', description: 'v%d', parameters: {} }, (p: P%d) => big%d.length);
`, i, i, i, strings.Repeat(`"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",`, 500), i, i, i)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := r.bundle(context.Background(), path, nil, false); err != nil {
			t.Fatalf("version %d: %v", i, err)
		}
	}
	pid := func() int {
		r.bmu.Lock()
		defer r.bmu.Unlock()
		if r.bproc == nil {
			t.Fatal("no bundler process")
		}
		return r.bproc.cmd.Process.Pid
	}
	for i := 0; i < 30; i++ {
		bundle(i)
	}
	p0, before := pid(), rssKiB(t, pid())
	for i := 30; i < 130; i++ {
		bundle(i)
	}
	if p := pid(); p != p0 {
		t.Skip("the bundler was restarted meanwhile")
	}
	after := rssKiB(t, p0)
	t.Logf("bundler RSS %d KiB after 30 bundles, %d KiB after 130", before, after)
	if after > before+32<<10 {
		t.Fatalf("the bundler grew from %d to %d KiB over 100 bundles", before, after)
	}
}
