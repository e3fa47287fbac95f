package discovery

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/js"
	"github.com/aios-host/aios-host/runtimes/python"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// probeSnap is testutil.Resources and the files under a data folder.
type probeSnap struct {
	testutil.Resources
	dataBytes int64
	dataFiles int
}

func (s probeSnap) String() string {
	return fmt.Sprintf("%v data=%d files/%dKiB", s.Resources, s.dataFiles, s.dataBytes>>10)
}

func probeTake(data string) probeSnap {
	s := probeSnap{Resources: testutil.TakeResources()}
	if data != "" {
		_ = filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil {
					s.dataBytes += info.Size()
					s.dataFiles++
				}
			}
			return nil
		})
	}
	return s
}

// withCustomSection returns a WebAssembly binary (module or component)
// with a custom section carrying tag appended: a new file, same code.
func withCustomSection(b []byte, tag string) []byte {
	name := "probe"
	payload := append([]byte{byte(len(name))}, name...)
	payload = append(payload, tag...)
	out := append([]byte(nil), b...)
	out = append(out, 0)
	out = testutil.AppendULEB(out, uint64(len(payload)))
	return append(out, payload...)
}

// TestLeakHotReload rewrites a plugin of every file runtime in a
// watched folder many times: each rewrite replaces the provider. What the
// replaced providers held (goroutines, fds, worker processes) must go.
func TestLeakHotReload(t *testing.T) {
	root := testutil.RepoRoot(t)
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	data := filepath.Join(dir, "data")
	_ = os.MkdirAll(plugins, 0o755)
	cfg, err := config.Parse([]byte("plugins: ["+plugins+"]\ndata: "+data+"\naudit: {disabled: true}\n"+
		"discovery:\n  dirs: []\n  desktop_dirs: []\n"), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	jsRT := js.New(js.Options{})
	defer jsRT.Close()
	pyRT, err := python.New(python.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pyRT.Close()
	core, err := wasm.NewEngineLoader("", wasm.Options{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	comp := component.NewLoader(component.Options{CacheDir: filepath.Join(data, "cache", "component")})
	loaders := append(jsRT.Loaders(), pyRT, component.Dispatch(core, comp))
	h, err := host.New(host.Options{Config: cfg, Loaders: loaders})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Skipf("%s: %v", rel, err)
		}
		return b
	}
	type plug struct {
		file string
		tool string
		gen  func(i int) []byte
	}
	jsSrc, pySrc := read("samples/plugins/thumbnail.js"), read("samples/python/conformance.py")
	tsSrc := read("samples/plugins/summarizer.ts")
	coreBin, compBin := read("build/wasm/c-echo.wasm"), read("build/components/imagetools.wasm")
	plugs := []plug{
		{"conf.js", "", func(i int) []byte { return append([]byte(fmt.Sprintf("// %d\n", i)), jsSrc...) }},
		{"conf.ts", "", func(i int) []byte {
			return append([]byte(fmt.Sprintf("// %d\n", i)), tsSrc...)
		}},
		{"conf.py", "", func(i int) []byte { return append([]byte(fmt.Sprintf("# %d\n", i)), pySrc...) }},
		{"echo.wasm", "", func(i int) []byte { return withCustomSection(coreBin, strconv.Itoa(i)) }},
		{"imagetools.wasm", "", func(i int) []byte { return withCustomSection(compBin, strconv.Itoa(i)) }},
	}
	if only := os.Getenv("PROBE_PLUGIN"); only != "" {
		var keep []plug
		for _, p := range plugs {
			if strings.HasSuffix(p.file, only) {
				keep = append(keep, p)
			}
		}
		plugs = keep
	}
	for _, p := range plugs {
		if err := os.WriteFile(filepath.Join(plugins, p.file), p.gen(0), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reloads := make(chan ReloadEvent, 256)
	d, err := New(Options{Host: h, Config: cfg, OnReload: func(ev ReloadEvent) { reloads <- ev }})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if errs := d.Errors(); len(errs) > 0 {
		t.Fatalf("load errors: %v", errs)
	}
	nprov := len(h.Registry().Providers())
	t.Logf("%d providers", nprov)
	for len(reloads) > 0 {
		<-reloads
	}

	// rewrite writes every plugin's i-th version and waits for as many
	// updates.
	rewrite := func(i int) {
		for _, p := range plugs {
			tmp := filepath.Join(dir, p.file)
			if err := os.WriteFile(tmp, p.gen(i), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, filepath.Join(plugins, p.file)); err != nil {
				t.Fatal(err)
			}
		}
		got := 0
		timeout := time.After(30 * time.Second)
		for got < len(plugs) {
			select {
			case ev := <-reloads:
				if ev.Action == "reload" {
					got++
				} else {
					t.Logf("round %d: %+v", i, ev)
				}
			case <-timeout:
				t.Fatalf("round %d: %d of %d reloads; errors %v", i, got, len(plugs), d.Errors())
			}
		}
		// One call each, so the runtimes start their instances and workers.
		for _, e := range h.Registry().Tools() {
			if strings.HasSuffix(e.Def.Name, "echo") {
				_, _ = h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: e.Def.Name, Version: e.Version.String(), Params: map[string]any{"value": "x", "message": "x", "text": "x"}})
			}
		}
	}
	n := 5
	if v, err := strconv.Atoi(os.Getenv("PROBE_N")); err == nil {
		n = v
	}
	rewrite(1)
	rewrite(2)
	time.Sleep(300 * time.Millisecond)
	before := probeTake(data)
	for i := 3; i < 3+n; i++ {
		rewrite(i)
	}
	time.Sleep(300 * time.Millisecond)
	after := probeTake(data)
	end := time.Now().Add(5 * time.Second)
	for (after.Goroutines > before.Goroutines+2 || after.Children > before.Children) && time.Now().Before(end) {
		time.Sleep(100 * time.Millisecond)
		after = probeTake(data)
	}
	t.Logf("before %v\nafter %d reloads: %v", before, n, after)
	if after.Goroutines > before.Goroutines+3 || after.FDs > before.FDs+3 || after.Children > before.Children || after.Zombies > 0 {
		t.Errorf("after %d reloads of %d plugins: %v (before %v)\n%s", n, len(plugs), after, before, testutil.GoroutineDump())
	}
}

// inotifyWatches counts the inotify watches this process holds (the
// "inotify wd:" lines of /proc/self/fdinfo).
func inotifyWatches() int {
	n := 0
	ents, _ := os.ReadDir("/proc/self/fdinfo")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc/self/fdinfo", e.Name()))
		if err == nil {
			n += strings.Count(string(b), "inotify wd:")
		}
	}
	return n
}

// TestLeakFolderChurn adds and removes plugin folders (adapter
// folders with a provider file, a nested folder) in a watched plugin
// folder many times: the watches, goroutines and fds of the removed
// folders must go (a host watching a folder that tools come and go in
// for days would otherwise run out of inotify watches, 8192 per user by
// default on older kernels).
func TestLeakFolderChurn(t *testing.T) {
	env := newEnv(t, "debounce: 10ms\n", nil)
	spec := func(i int) string {
		return fmt.Sprintf(`{"id": "org.test.churn%d", "version": "1.0.0", "tools": ["churn%d"]}`, i, i)
	}
	round := func(r int) {
		for i := 0; i < 5; i++ {
			dir := filepath.Join(env.dir, fmt.Sprintf("tool%d", i))
			writeFile(t, filepath.Join(dir, "sub", "x.txt"), "x")
			writeFile(t, filepath.Join(dir, "p.fake"), spec(i))
		}
		testutil.Eventually(t, fmt.Sprintf("round %d: 5 providers loaded", r), func() bool {
			return len(env.h.Registry().Providers()) == 5
		})
		for i := 0; i < 5; i++ {
			if err := os.RemoveAll(filepath.Join(env.dir, fmt.Sprintf("tool%d", i))); err != nil {
				t.Fatal(err)
			}
		}
		testutil.Eventually(t, fmt.Sprintf("round %d: providers unloaded", r), func() bool {
			return len(env.h.Registry().Providers()) == 0
		})
	}
	round(0)
	time.Sleep(100 * time.Millisecond)
	w0, before := inotifyWatches(), probeTake("")
	for r := 1; r <= 20; r++ {
		round(r)
	}
	time.Sleep(200 * time.Millisecond)
	w1, after := inotifyWatches(), probeTake("")
	t.Logf("inotify watches %d -> %d; %v -> %v", w0, w1, before, after)
	if w1 > w0+2 || after.Goroutines > before.Goroutines+3 || after.FDs > before.FDs+3 {
		t.Errorf("after 20 rounds of 5 folders added and removed: inotify watches %d -> %d, %v (before %v)\n%s", w0, w1, after, before, testutil.GoroutineDump())
	}
}
