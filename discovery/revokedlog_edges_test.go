package discovery

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRevokedKeyLogSaysUnloaded: a provider whose key left its jwks file
// (revoked, rotated out) is unloaded, but the line logged at Error said
// "provider not loaded; the previous version (if any) keeps serving",
// the opposite of what happened (only the error's tail said "the provider
// it serves is unloaded"), so an operator reading the log's message took
// it to be still served. The message says the serving version is
// unloaded.
func TestRevokedKeyLogSaysUnloaded(t *testing.T) {
	k := newTestKey(t, "Verified")
	path := strings.TrimSuffix(k.cfg[strings.Index(k.cfg, "jwks: ")+len("jwks: "):], "}]\n")
	card := `{"adapter": {"id": "org.test.revoked", "name": "R", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	logs := &lockedLog{}
	env := newEnvWith(t, k.cfg, func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "revoked"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"revoked-echo"}})
	}, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	if env.h.Registry().Provider("org.test.revoked") == nil {
		t.Fatalf("not loaded: %v", env.d.Errors())
	}
	other := newTestKey(t, "Verified")
	data, err := os.ReadFile(strings.TrimSuffix(other.cfg[strings.Index(other.cfg, "jwks: ")+len("jwks: "):], "}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(data))
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if env.h.Registry().Provider("org.test.revoked") != nil {
		t.Fatalf("still served after its key was revoked")
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "level=ERROR") && strings.Contains(line, "revoked") {
			if strings.Contains(line, "keeps serving") || !strings.Contains(line, "unloaded") {
				t.Errorf("the refusal's log line should say the serving version is unloaded: %s", line)
			}
			return
		}
	}
	t.Fatalf("no error logged for the unit:\n%s", logs.String())
}
