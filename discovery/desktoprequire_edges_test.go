package discovery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestDesktopUnderRequireSignature: with discovery.require_signature,
// which docs/trust.md says refuses unsigned cards altogether, a .desktop
// file (which any process of the host's user can write in
// ~/.local/share/applications) matched to a known adapter registered that
// adapter's unsigned built-in card, its tools served at Untrusted over a
// socket any such process could listen on. It is left out now, said once
// at Info with the way to use it; without require_signature it loads.
func TestDesktopUnderRequireSignature(t *testing.T) {
	for _, require := range []bool{true, false} {
		dir := t.TempDir()
		apps := filepath.Join(dir, "apps")
		exe := filepath.Join(dir, "fakeapp")
		writeFile(t, exe, "#!/bin/sh\n")
		if err := os.Chmod(exe, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "lib", "app.json"), strings.NewReplacer("EXE", exe).Replace(`{
  "adapter": {"id": "org.test.app", "name": "App (known)", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {},
  "skills": [{"id": "app-open", "name": "Open", "permission_level": "medium"}],
  "endpoints": {"rpc": "unix:///nonexistent/app.sock"},
  "requirements": {"software": {"name": "App", "detection": {"desktop_file": "app.desktop", "executable": "EXE"}}}
}`))
		lib, err := LoadLibrary(os.DirFS(dir), "lib")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(apps, "app.desktop"), "[Desktop Entry]\nType=Application\nName=App\nExec="+exe+"\n")
		logs := &testutil.SyncBuffer{}
		cfg := "desktop_dirs: [" + apps + "]\nknown_adapters: false\n"
		if require {
			cfg = "require_signature: true\n" + cfg
		}
		env := newEnvWith(t, cfg, nil, func(o *Options) { withLogs(logs)(o); o.Library = lib })
		_, err = env.h.Registry().Resolve("app-open", "")
		switch {
		case require && err == nil:
			t.Fatalf("require_signature: the known adapter's unsigned card was registered from %s", filepath.Join(apps, "app.desktop"))
		case require && logLines(logs, "level=INFO", "require_signature", "adapter=org.test.app") != 1:
			t.Fatalf("the left-out adapter was not said once at Info:\n%s", logs.String())
		case !require && err != nil:
			t.Fatalf("without require_signature the known adapter should load: %v %v", err, env.d.Errors())
		}
	}
}
