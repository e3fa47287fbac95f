package discovery

import (
	"context"
	"encoding/json"
	"errors"
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
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/trust"
)

func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

const cardB = `{
  "adapter": {"id": "org.test.bcard", "name": "B by card", "version": "2.0.0", "protocol_version": "0.3.0"},
  "capabilities": {},
  "skills": [{"id": "b-echo", "name": "B echo", "description": "from the card", "permission_level": "low",
              "input_schema": {"type": "object", "properties": {"value": {}}}}]
}`

func TestInitialScan(t *testing.T) {
	// The remote adapter's provider is vouched for: an unsigned card may
	// not make the host connect to a local socket either
	// (TestUnixEndpointNeedsLocalNetwork).
	top := func(string) string { return "providers:\n  org.test.remote: {trust: Verified}\n" }
	env := newEnvTop(t, top, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a-echo"}})
		// A folder: card + artifact; the card renames the provider and overrides the tool.
		writeFake(t, filepath.Join(dir, "b", "tool.fake"), fakeSpec{ID: "org.test.b-inner", Version: "1.0.0", Tools: []string{"b-echo", "b-extra"}})
		writeFile(t, filepath.Join(dir, "b", "adapter.json"), cardB)
		// A folder: tool.aios.yaml + artifact.
		writeFake(t, filepath.Join(dir, "c", "c.fake"), fakeSpec{ID: "org.test.c-inner", Version: "1.0.0", Tools: []string{"c-echo"}})
		writeFile(t, filepath.Join(dir, "c", "tool.aios.yaml"), "tool: {id: org.test.cyaml, name: C, version: 3.0.0}\ncapabilities: [{id: c-echo, name: C echo}]\npermissions: [{skill: '*', level: high}]\n")
		// A top-level card of a remote adapter (on a local socket: an
		// unsigned card may not make the host reach the network,
		// TestEndpointNeedsNetwork).
		writeFile(t, filepath.Join(dir, "remote.adapter.json"), `{
  "adapter": {"id": "org.test.remote", "name": "Remote", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "r-echo", "name": "R echo", "permission_level": "low"}],
  "endpoints": {"rpc": "unix:///nonexistent/aios-test-remote.sock"}}`)
		// Broken ones, each reported with its file.
		writeFile(t, filepath.Join(dir, "broken", "adapter.json"), `{"adapter": {"id": "x"}}`)
		writeFile(t, filepath.Join(dir, "junk.fake"), `{not json`)
		writeFile(t, filepath.Join(dir, "notes.txt"), `ignored`)
	}, nil)
	reg := env.h.Registry()
	for _, tool := range []string{"a-echo", "b-echo", "b-extra", "c-echo", "r-echo"} {
		if _, err := reg.Resolve(tool, ""); err != nil {
			t.Errorf("tool %s: %v", tool, err)
		}
	}
	if p := reg.Provider("org.test.bcard"); p == nil || p.Info.Version != "2.0.0" {
		t.Fatalf("card did not rename the provider: %+v", reg.Providers())
	}
	e, _ := reg.Resolve("b-echo", "")
	if e.Def.Description != "from the card" || e.Def.PermissionLevel != "low" || e.Def.Version != "2.0.0" {
		t.Fatalf("card metadata did not override: %+v", e.Def)
	}
	e, _ = reg.Resolve("c-echo", "")
	if e.Def.PermissionLevel != "high" || e.Provider.Info.ID != "org.test.cyaml" {
		t.Fatalf("yaml metadata: %+v", e.Def)
	}
	e, _ = reg.Resolve("r-echo", "")
	if e.Provider.Info.Runtime != abi.RuntimeRemote {
		t.Fatalf("remote card runtime = %q", e.Provider.Info.Runtime)
	}
	if _, err := env.call("r-echo", 1); abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("calling an unreachable remote adapter: %v", err)
	}
	if v, err := env.call("b-echo", "hi"); err != nil || v["value"] != "hi" {
		t.Fatalf("b-echo = %v, %v", v, err)
	}
	errs := env.d.Errors()
	for _, f := range []string{"broken", "junk.fake"} {
		found := false
		for k, v := range errs {
			if strings.HasSuffix(k, f) && strings.Contains(v, f) {
				found = true
			}
		}
		if !found {
			t.Errorf("no error reported naming %s: %v", f, errs)
		}
	}
}

// TestInitialScanAppliesInScanOrder: the initial scan loads files side by
// side, so a slow one does not hold the others: a.fake (first in scan
// order) can only finish once b.fake has loaded, which a scan loading one
// file after another never does. Results are still applied, and reported
// to Progress, in scan order.
func TestInitialScanAppliesInScanOrder(t *testing.T) {
	var got []string
	env := newEnvWith(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a-echo"}, WaitFor: "org.test.b"})
		writeFake(t, filepath.Join(dir, "b.fake"), fakeSpec{ID: "org.test.b", Version: "1.0.0", Tools: []string{"b-echo"}})
	}, func(o *Options) {
		o.Progress = func(done, total int, path string, err error) {
			got = append(got, fmt.Sprintf("%d/%d %s %v", done, total, filepath.Base(path), err))
		}
	})
	want := []string{"1/2 a.fake <nil>", "2/2 b.fake <nil>"}
	if !slices.Equal(got, want) {
		t.Fatalf("progress %q, want %q", got, want)
	}
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Fatalf("scan errors: %v", errs)
	}
}

// TestHotReloadsSideBySide: files dropped while the host runs load side by
// side too: a.fake can only finish once b.fake, dropped after it, has
// loaded, which reloading one unit after another never does (a would
// fail after waiting 10 s).
func TestHotReloadsSideBySide(t *testing.T) {
	env := newEnv(t, "", nil)
	writeFake(t, filepath.Join(env.dir, "a.fake"), fakeSpec{ID: "org.test.hot-a", Version: "1.0.0", Tools: []string{"hot-a"}, WaitFor: "org.test.hot-b"})
	time.Sleep(20 * time.Millisecond) // a's debounce ends first
	writeFake(t, filepath.Join(env.dir, "b.fake"), fakeSpec{ID: "org.test.hot-b", Version: "1.0.0", Tools: []string{"hot-b"}})
	testutil.Eventually(t, "both loaded", func() bool {
		_, errA := env.call("hot-a", 1)
		_, errB := env.call("hot-b", 1)
		return errA == nil && errB == nil
	})
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Fatalf("reload errors: %v", errs)
	}
}

func TestHotReloadLifecycle(t *testing.T) {
	env := newEnv(t, "", nil)
	path := filepath.Join(env.dir, "hot.fake")
	writeFake(t, path, fakeSpec{ID: "org.test.hot", Version: "1.0.0", Tools: []string{"hot"}})
	testutil.Eventually(t, "hot loaded", func() bool { v, err := env.call("hot", 1); return err == nil && v["version"] == "1.0.0" })

	writeFake(t, path, fakeSpec{ID: "org.test.hot", Version: "1.1.0", Tools: []string{"hot"}})
	testutil.Eventually(t, "hot reloaded", func() bool { v, err := env.call("hot", 1); return err == nil && v["version"] == "1.1.0" })

	// A half-written file never replaces the good version.
	if err := os.WriteFile(path, []byte(`{"id": "org.test.hot", "vers`), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "error reported", func() bool { return strings.Contains(env.d.Errors()[path], "hot.fake") })
	if v, err := env.call("hot", 1); err != nil || v["version"] != "1.1.0" {
		t.Fatalf("after a broken write: %v %v", v, err)
	}
	// Finishing the write loads it.
	writeFake(t, path, fakeSpec{ID: "org.test.hot", Version: "1.2.0", Tools: []string{"hot"}})
	testutil.Eventually(t, "fixed file loaded", func() bool { v, err := env.call("hot", 1); return err == nil && v["version"] == "1.2.0" })
	if len(env.d.Errors()) != 0 {
		t.Fatalf("errors after the fix: %v", env.d.Errors())
	}

	// A folder provider appears, and goes with its folder.
	writeFake(t, filepath.Join(env.dir, "sub", "tool.fake"), fakeSpec{ID: "org.test.sub", Version: "1.0.0", Tools: []string{"sub"}})
	testutil.Eventually(t, "folder provider", func() bool { _, err := env.call("sub", 1); return err == nil })
	if err := os.RemoveAll(filepath.Join(env.dir, "sub")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "folder provider gone", func() bool { _, err := env.call("sub", 1); return abi.CodeOf(err) == abi.NotFound })

	// Rename away unloads; rename back loads.
	moved := filepath.Join(t.TempDir(), "hot.fake")
	if err := os.Rename(path, moved); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "unloaded on rename", func() bool { _, err := env.call("hot", 1); return abi.CodeOf(err) == abi.NotFound })
	if err := os.Rename(moved, path); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "reloaded on rename back", func() bool { _, err := env.call("hot", 1); return err == nil })
}

// 100 hot reloads of one provider while 8 goroutines call it: no call fails.
func TestHotReloadUnderLoad(t *testing.T) {
	env := newEnv(t, "debounce: 5ms\n", nil)
	path := filepath.Join(env.dir, "busy.fake")
	writeFake(t, path, fakeSpec{ID: "org.test.busy", Version: "1.0.0", Tools: []string{"busy"}})
	testutil.Eventually(t, "busy loaded", func() bool { _, err := env.call("busy", 1); return err == nil })

	var stop atomic.Bool
	var calls, failures atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if _, err := env.call("busy", "x"); err != nil {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
				calls.Add(1)
				time.Sleep(200 * time.Microsecond)
			}
		}()
	}
	const reloads = 100
	for i := 1; i <= reloads; i++ {
		v := "1.0." + itoa(i)
		writeFake(t, path, fakeSpec{ID: "org.test.busy", Version: v, Tools: []string{"busy"}})
		testutil.Eventually(t, "version "+v, func() bool { r, err := env.call("busy", 1); return err == nil && r["version"] == v })
	}
	stop.Store(true)
	wg.Wait()
	if failures.Load() != 0 {
		t.Fatalf("%d of %d calls failed during %d reloads; first: %v", failures.Load(), calls.Load(), reloads, firstErr.Load())
	}
	t.Logf("%d calls, %d reloads, 0 failures", calls.Load(), reloads)
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// Deleting a provider while a call runs: the call finishes on it, the
// provider is closed only afterwards, later calls get NotFound.
func TestDeleteMidCall(t *testing.T) {
	env := newEnv(t, "", nil)
	path := filepath.Join(env.dir, "slow.fake")
	writeFake(t, path, fakeSpec{ID: "org.test.slow", Version: "1.0.0", Tools: []string{"slow"}, SleepMS: 400})
	testutil.Eventually(t, "slow loaded", func() bool { return env.h.Registry().Provider("org.test.slow") != nil })
	done := make(chan error, 1)
	go func() { _, err := env.call("slow", 1); done <- err }()
	time.Sleep(50 * time.Millisecond)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "unloaded", func() bool { return env.h.Registry().Provider("org.test.slow") == nil })
	if err := <-done; err != nil {
		t.Fatalf("the call in flight failed: %v", err)
	}
	if _, err := env.call("slow", 1); abi.CodeOf(err) != abi.NotFound {
		t.Fatalf("after delete: %v", err)
	}
}

// card > yaml > desktop for one adapter id (seed §6.2).
func TestPriority(t *testing.T) {
	dir := t.TempDir()
	apps := filepath.Join(dir, "apps")
	exe := filepath.Join(dir, "fakeapp")
	writeFile(t, exe, "#!/bin/sh\n")
	_ = os.Chmod(exe, 0o755)
	known := strings.NewReplacer("EXE", exe).Replace(`{
  "adapter": {"id": "org.test.app", "name": "App (known)", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {},
  "skills": [{"id": "app-open", "name": "Open", "permission_level": "medium"}],
  "endpoints": {"rpc": "unix:///nonexistent/app.sock"},
  "requirements": {"software": {"name": "App", "detection": {"desktop_file": "app.desktop", "executable": "EXE"}}}
}`)
	writeFile(t, filepath.Join(dir, "lib", "app.json"), known)
	lib, err := LoadLibrary(os.DirFS(dir), "lib")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(apps, "app.desktop"), "[Desktop Entry]\nType=Application\nName=App\nExec="+exe+"\n")
	writeFile(t, filepath.Join(apps, "other.desktop"), "[Desktop Entry]\nType=Application\nName=Other\nExec=other\n")

	env := newEnvLib(t, "desktop_dirs: ["+apps+"]\n", lib)
	reg := env.h.Registry()
	which := func() string {
		e, err := reg.Resolve("app-open", "")
		if err != nil {
			return "none"
		}
		return e.Provider.Source
	}
	if !strings.HasSuffix(which(), "app.desktop") {
		t.Fatalf("desktop-matched adapter not registered: %s", which())
	}
	if _, err := env.call("app-open", 1); abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("calling a known adapter whose socket is absent: %v", err)
	}
	writeFake(t, filepath.Join(env.dir, "y", "tool.fake"), fakeSpec{ID: "x", Version: "1.0.0", Tools: []string{"app-open"}})
	writeFile(t, filepath.Join(env.dir, "y", "tool.aios.yaml"), "tool: {id: org.test.app, name: App yaml, version: 1.5.0}\ncapabilities: [{id: app-open, name: Open}]\n")
	testutil.Eventually(t, "yaml wins over desktop", func() bool { return strings.HasSuffix(which(), "/y") })
	writeFake(t, filepath.Join(env.dir, "c", "tool.fake"), fakeSpec{ID: "x", Version: "1.0.0", Tools: []string{"app-open"}})
	writeFile(t, filepath.Join(env.dir, "c", "adapter.json"), `{"adapter": {"id": "org.test.app", "name": "App card", "version": "2.0.0", "protocol_version": "0.3.0"}, "capabilities": {}, "skills": []}`)
	testutil.Eventually(t, "card wins over yaml", func() bool { return strings.HasSuffix(which(), "/c") })
	var shadowed int
	for _, a := range env.d.Adapters() {
		if a.ID == "org.test.app" && !a.Active && a.Shadowed != "" {
			shadowed++
		}
	}
	if shadowed != 2 {
		t.Fatalf("want 2 shadowed descriptions, got %+v", env.d.Adapters())
	}
	_ = os.RemoveAll(filepath.Join(env.dir, "c"))
	testutil.Eventually(t, "yaml back after the card goes", func() bool { return strings.HasSuffix(which(), "/y") })
	_ = os.RemoveAll(filepath.Join(env.dir, "y"))
	testutil.Eventually(t, "desktop back after the yaml goes", func() bool { return strings.HasSuffix(which(), "app.desktop") })
	_ = os.Remove(filepath.Join(apps, "app.desktop"))
	testutil.Eventually(t, "gone with the desktop file", func() bool { return which() == "none" })
}

func newEnvLib(t testing.TB, yaml string, lib *Library) *testEnv {
	t.Helper()
	// Same as newEnv with a custom library.
	env := newEnv(t, yaml+"known_adapters: false\n", nil)
	_ = env.d.Close()
	d, err := New(Options{Host: env.h, Config: env.cfg, Library: lib})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	env.d = d
	return env
}

func TestSignedFolder(t *testing.T) {
	key, err := trust.GenerateKey("ES256", "test-key")
	if err != nil {
		t.Fatal(err)
	}
	jwks, _ := trust.MarshalJWKS(key.PublicJWK())
	keyDir := t.TempDir()
	writeFile(t, filepath.Join(keyDir, "keys.json"), string(jwks))
	env := newEnv(t, "keys: [{trust: Verified, jwks: "+filepath.Join(keyDir, "keys.json")+"}]\n", nil)

	stage := t.TempDir()
	writeFake(t, filepath.Join(stage, "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"signed-echo"}})
	writeFile(t, filepath.Join(stage, "data.txt"), "a file the artifact reads")
	card := `{"adapter": {"id": "org.test.signed", "name": "Signed", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "signed-echo", "name": "Echo", "permission_level": "low"}],
  "artifact": {"path": "tool.fake"}}`
	pinned, ok, err := trust.PinArtifact([]byte(card), stage, "adapter.json")
	if err != nil || !ok {
		t.Fatal(err)
	}
	signed, err := trust.SignCard(pinned, key)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(stage, "adapter.json"), string(signed))
	dst := filepath.Join(env.dir, "signed")
	if err := os.Rename(stage, dst); err != nil {
		// Different file systems: copy.
		_ = os.MkdirAll(dst, 0o755)
		for _, n := range []string{"tool.fake", "adapter.json", "data.txt"} {
			b, _ := os.ReadFile(filepath.Join(stage, n))
			writeFile(t, filepath.Join(dst, n), string(b))
		}
	}
	testutil.Eventually(t, "signed provider", func() bool { return env.h.Registry().Provider("org.test.signed") != nil })
	if tl := env.h.Registry().Provider("org.test.signed").Trust; tl != abi.Verified {
		t.Fatalf("trust = %v, want Verified", tl)
	}
	a, _ := env.d.Adapter("org.test.signed")
	if !a.Signed || a.KeyID != "test-key" {
		t.Fatalf("adapter = %+v", a)
	}
	// The loader is told the unit and every pinned file: what it may run.
	var src abi.Source
	env.load.mu.Lock()
	for _, p := range env.load.made {
		if p.spec.ID == "org.test.inner" {
			src = p.src
		}
	}
	env.load.mu.Unlock()
	lib := filepath.Join(dst, "data.txt")
	if src.Unit != dst || len(src.Pinned) != 2 || len(src.Pinned[lib]) != 64 || len(src.Pinned[filepath.Join(dst, "tool.fake")]) != 64 {
		t.Fatalf("loader source: unit %q, pinned %v", src.Unit, src.Pinned)
	}

	// Editing a pinned file beside the artifact is refused too.
	writeFile(t, lib, "edited")
	testutil.Eventually(t, "pinned file mismatch reported", func() bool {
		return strings.Contains(env.d.Errors()[dst], `pinned file "data.txt" has sha256`)
	})
	writeFile(t, lib, "a file the artifact reads")
	testutil.Eventually(t, "error cleared", func() bool { return env.d.Errors()[dst] == "" })

	// Swapping the code under the signed card is refused; the old one serves.
	writeFake(t, filepath.Join(dst, "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "6.6.6", Tools: []string{"signed-echo"}})
	testutil.Eventually(t, "artifact mismatch reported", func() bool {
		return errors.Is(errors.New(env.d.Errors()[dst]), trust.ErrArtifact) || strings.Contains(env.d.Errors()[dst], "pins")
	})
	if v, err := env.call("signed-echo", 1); err != nil || v["version"] != "1.0.0" {
		t.Fatalf("after swap attempt: %v %v", v, err)
	}

	// A tampered copy of the card elsewhere is refused outright.
	tampered := strings.Replace(string(signed), `"Signed"`, `"Signed!"`, 1)
	writeFake(t, filepath.Join(env.dir, "copy", "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"signed-echo"}})
	writeFile(t, filepath.Join(env.dir, "copy", "data.txt"), "a file the artifact reads")
	writeFile(t, filepath.Join(env.dir, "copy", "adapter.json"), tampered)
	copyDir := filepath.Join(env.dir, "copy")
	testutil.Eventually(t, "tampered card refused", func() bool { return strings.Contains(env.d.Errors()[copyDir], "does not verify") })
}

// A card that the host refuses (tool name taken by another provider) keeps
// the old version of its own unit serving.
func TestConflictKeepsOld(t *testing.T) {
	env := newEnv(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "one.fake"), fakeSpec{ID: "org.test.one", Version: "1.0.0", Tools: []string{"one"}})
		writeFake(t, filepath.Join(dir, "two.fake"), fakeSpec{ID: "org.test.two", Version: "1.0.0", Tools: []string{"two"}})
	})
	writeFake(t, filepath.Join(env.dir, "two.fake"), fakeSpec{ID: "org.test.two", Version: "1.0.0", Tools: []string{"one"}})
	testutil.Eventually(t, "conflict reported", func() bool { return env.d.Errors()[filepath.Join(env.dir, "two.fake")] != "" })
	if _, err := env.call("two", 1); err != nil {
		t.Fatalf("old version of two stopped serving: %v", err)
	}
}

// TestPluginsFileRefused: a file given as a plugin folder is refused at
// Start, naming it. It was watched as a folder, said to be unreadable and,
// two seconds later, to be "gone, its providers removed".
func TestPluginsFileRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tool.fake")
	writeFake(t, file, fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a-echo"}})
	cfg, err := config.Parse([]byte("plugins: ["+file+"]\ndata: "+filepath.Join(dir, "data")+"\naudit: {disabled: true}\ndiscovery:\n  dirs: []\n"), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg, Loaders: []abi.Loader{&fakeLoader{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, once := range []bool{false, true} {
		d, err := New(Options{Host: h, Config: cfg, Once: once})
		if err != nil {
			t.Fatal(err)
		}
		err = d.Start(context.Background())
		_ = d.Close()
		if err == nil || !strings.Contains(err.Error(), "plugin folder "+file+" is a file, not a folder") {
			t.Fatalf("Once %v: Start with a file as plugin folder: %v", once, err)
		}
	}
}
