package discovery

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExpiredKeyUnloadsWithoutChange: a provider loaded under a key with an
// expiry (`expires` in discovery.keys, or the JWK's `exp`) kept serving at
// the key's trust after the key expired, for as long as nothing in its
// folder changed and nobody called aios/registry.refresh: its signature was
// looked at again only then, though a restart refused it at once ("signing
// key expired"). Discovery now looks again, every remote_refresh, at the
// units whose signing key has expired, and unloads them.
func TestExpiredKeyUnloadsWithoutChange(t *testing.T) {
	k := newTestKey(t, "Verified")
	expires := time.Now().Add(3 * time.Second).UTC().Truncate(time.Second).Add(time.Second)
	cfg := strings.Replace(k.cfg, "}]", ", expires: \""+expires.Format(time.RFC3339)+"\"}]", 1)
	card := `{"adapter": {"id": "org.test.expiring", "name": "E", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	logs := &lockedLog{}
	env := newEnvWith(t, "remote_refresh: 150ms\n"+cfg, func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "expiring"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"expiring-echo"}})
	}, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	p := env.h.Registry().Provider("org.test.expiring")
	if p == nil || p.Trust.String() != "Verified" {
		t.Fatalf("not loaded at Verified before its key expired: %v %v", p, env.d.Errors())
	}
	deadline := expires.Add(20 * time.Second)
	for env.h.Registry().Provider("org.test.expiring") != nil {
		if time.Now().After(deadline) {
			t.Fatalf("still served at %s %s after its key expired at %s", p.Trust, time.Since(expires).Round(time.Second), expires)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if e := env.d.Errors()[filepath.Join(env.dir, "expiring")]; !strings.Contains(e, "expired") {
		t.Errorf("error %q should say the signing key expired", e)
	}
	// Refused once, not looked at again on every tick.
	time.Sleep(time.Second)
	if n := strings.Count(logs.String(), "level=ERROR"); n != 1 {
		t.Errorf("%d errors logged, want 1:\n%s", n, logs.String())
	}
}

// TestNotYetValidKeyLoadsWhenValid: a card signed with a key rotated in
// ahead of time (`not_before` in discovery.keys, or the JWK's `nbf`, in
// the future) was refused, rightly, and stayed refused after the key
// became valid, until something changed in its folder, a refresh or a
// restart. Discovery now tries such a unit again every remote_refresh, as
// one whose key set could not be fetched, and loads it once the key is
// valid.
func TestNotYetValidKeyLoadsWhenValid(t *testing.T) {
	k := newTestKey(t, "Verified")
	notBefore := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second).Add(time.Second)
	cfg := strings.Replace(k.cfg, "}]", ", not_before: \""+notBefore.Format(time.RFC3339)+"\"}]", 1)
	card := `{"adapter": {"id": "org.test.early", "name": "E", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	env := newEnv(t, "remote_refresh: 150ms\n"+cfg, func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "early"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"early-echo"}})
	})
	if time.Now().Before(notBefore) {
		if p := env.h.Registry().Provider("org.test.early"); p != nil {
			t.Fatalf("loaded at %s before its key is valid", p.Trust)
		}
		if e := env.d.Errors()[filepath.Join(env.dir, "early")]; !strings.Contains(e, "not valid before") {
			t.Fatalf("error %q should say the key is not valid yet", e)
		}
	}
	deadline := notBefore.Add(20 * time.Second)
	for env.h.Registry().Provider("org.test.early") == nil {
		if time.Now().After(deadline) {
			t.Fatalf("not loaded %s after its key became valid: %v", time.Since(notBefore).Round(time.Second), env.d.Errors())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if p := env.h.Registry().Provider("org.test.early"); p.Trust.String() != "Verified" {
		t.Fatalf("trust %s, want Verified", p.Trust)
	}
}
