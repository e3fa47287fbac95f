package discovery

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestInPlaceRollbackWarned: an account that can write the plugin
// folder, without the signing key, puts a validly signed older release
// (card and artifact) in place of the current one. A signature carries no
// date, so nothing tells the host the release is stale and it loads, as
// docs/trust.md "Downgrade and replay" says; the log said only "provider
// reloaded", as for any release. It now warns, naming the versions, the
// folder and the key, and an upgrade does not warn.
func TestInPlaceRollbackWarned(t *testing.T) {
	k := newTestKey(t, "Verified")
	card := func(v string) string {
		return `{"adapter": {"id": "org.test.rollback", "name": "R", "version": "` + v + `", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	}
	release := func(v string) string {
		dir := filepath.Join(t.TempDir(), "release")
		signedFolder(t, k, dir, card(v), fakeSpec{ID: "org.test.inner", Version: v, Tools: []string{"rollback-echo"}})
		return dir
	}
	put := func(from, to string) {
		for _, n := range []string{"tool.fake", "adapter.json"} {
			b, err := os.ReadFile(filepath.Join(from, n))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(to, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	logs := &testutil.SyncBuffer{}
	env := newEnvWith(t, "watch: false\n"+k.cfg, func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "vendor"), card("1.0.0"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"rollback-echo"}})
	}, withLogs(logs))
	unit := filepath.Join(env.dir, "vendor")
	v1, v2 := release("1.0.0"), release("2.0.0")
	served := func() string {
		p := env.h.Registry().Provider("org.test.rollback")
		if p == nil {
			return ""
		}
		return p.Info.Version
	}
	put(v2, unit)
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil || served() != "2.0.0" {
		t.Fatalf("upgrade: %v, serving %q, errors %v", err, served(), env.d.Errors())
	}
	if n := logLines(logs, "older version"); n != 0 {
		t.Fatalf("an upgrade was warned as a downgrade:\n%s", logs.String())
	}
	put(v1, unit)
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil || served() != "1.0.0" {
		t.Fatalf("rollback: %v, serving %q, errors %v", err, served(), env.d.Errors())
	}
	if n := logLines(logs, "level=WARN", "older version", "provider=org.test.rollback", "from=2.0.0", "to=1.0.0", "key_id=test-key", "source="+unit); n != 1 {
		t.Fatalf("%d downgrade warnings naming the provider, versions, key and folder; want 1:\n%s", n, logs.String())
	}
}

// TestToolRollbackWarned: a provider reloaded at the same adapter version
// with a tool at a lower version (1.1.0 → 1.0.0) went without a word,
// semver_check comparing a version only with those below it: callers
// pinned to ~1.1 then found no version. It warns, naming the tool and the
// versions; an upgrade does not.
func TestToolRollbackWarned(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	env := newEnvWith(t, "watch: false\n", nil, withLogs(logs))
	file := filepath.Join(env.dir, "tools.fake")
	load := func(toolVersion string) {
		t.Helper()
		writeFake(t, file, fakeSpec{ID: "org.test.toolroll", Version: "3.0.0", ToolVersion: toolVersion, Tools: []string{"roll-a", "roll-b"}})
		if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
			t.Fatalf("refresh with tools at %s: %v (%v)", toolVersion, err, env.d.Errors())
		}
	}
	load("1.0.0")
	load("1.1.0")
	if n := logLines(logs, "older versions"); n != 0 {
		t.Fatalf("an upgrade was warned as a downgrade:\n%s", logs.String())
	}
	load("1.0.0")
	if n := logLines(logs, "level=WARN", "older versions", "provider=org.test.toolroll", "roll-a 1.1.0 → 1.0.0", "roll-b 1.1.0 → 1.0.0"); n != 1 {
		t.Fatalf("%d tool downgrade warnings naming the provider, tools and versions; want 1:\n%s", n, logs.String())
	}
}
