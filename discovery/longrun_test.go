package discovery

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/js"
)

// TestStateBoundedUnderFileChurn: for weeks a developer's editor
// and build leave plugin files of new names in a watched folder — some
// broken, some not, some not plugins at all — and remove them. What
// discovery keeps per path (errors, notes, retries, debounce timers,
// candidates) must go with the files.
func TestStateBoundedUnderFileChurn(t *testing.T) {
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	_ = os.MkdirAll(plugins, 0o755)
	cfg, err := config.Parse([]byte("plugins: ["+plugins+"]\ndata: "+filepath.Join(dir, "data")+"\naudit: {disabled: true}\n"+
		"discovery:\n  dirs: []\n  desktop_dirs: []\n"), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	jsRT := js.New(js.Options{})
	defer jsRT.Close()
	h, err := host.New(host.Options{Config: cfg, Loaders: jsRT.Loaders()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	reloads := make(chan ReloadEvent, 1024)
	d, err := New(Options{Host: h, Config: cfg, OnReload: func(ev ReloadEvent) { reloads <- ev }})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	good := `aios.provider({ id: 'org.probe.churn%d', name: 'churn' });
aios.registerTool({ name: 'churn-%d', description: 'x', parameters: {} }, () => 'ok');
`
	sizes := func() string {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.notesMu.Lock()
		defer d.notesMu.Unlock()
		return fmt.Sprintf("errs=%d notes=%d keyRetry=%d unsettled=%d pending=%d cands=%d active=%d orphans=%d mixed=%d",
			len(d.errs), len(d.notes), len(d.keyRetry), len(d.unsettled), len(d.pending), len(d.cands), len(d.active), len(d.orphans), len(d.mixed))
	}
	before := sizes()
	const n = 30
	for i := 0; i < n; i++ {
		files := map[string]string{
			fmt.Sprintf("broken-%d.js", i): "this is not javascript {{{",
			fmt.Sprintf("good-%d.js", i):   fmt.Sprintf(good, i, i),
			fmt.Sprintf("empty-%d.js", i):  "",
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(plugins, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// Until the good one is loaded (the broken ones load beside it,
		// so they may fail just after: waited for below).
		wait := time.After(10 * time.Second)
	loaded:
		for {
			select {
			case ev := <-reloads:
				if ev.Action == "load" {
					break loaded
				}
			case <-wait:
				t.Fatalf("round %d: good-%d.js not loaded; errors %v", i, i, d.Errors())
			}
		}
		if i == 0 {
			testutil.Eventually(t, "the broken file's load error", func() bool { return len(d.Errors()) > 0 })
		}
		for name := range files {
			_ = os.Remove(filepath.Join(plugins, name))
		}
	}
	end := time.Now().Add(10 * time.Second)
	after := sizes()
	for after != before && time.Now().Before(end) {
		time.Sleep(200 * time.Millisecond)
		after = sizes()
	}
	if after != before {
		t.Fatalf("after %d files of new names came and went: %s (before %s)", 3*n, after, before)
	}
	if errs := d.Errors(); len(errs) > 0 {
		t.Fatalf("errors of removed files remain: %v", errs)
	}
	if tools := h.Registry().Tools(); len(tools) > 0 {
		t.Fatalf("tools of removed files remain: %d", len(tools))
	}
}
