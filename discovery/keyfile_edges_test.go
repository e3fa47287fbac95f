package discovery

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/trust"
)

// TestKeyFileEditTakesEffect: the keys of a discovery.keys jwks file
// were read once, at start. An operator who rotated a compromised key out
// of the file (or emptied it) left every provider signed with it served
// at its trust until a restart, though docs/trust.md says a provider goes
// once its key is revoked; a key added to the file verified nothing until
// a restart either. The files are read again at aios/registry.refresh and
// every remote_refresh: a provider whose key left goes, one whose key came
// loads, and a file refused (no key left, unsafe) trusts nothing until
// mended, saying so once.
func TestKeyFileEditTakesEffect(t *testing.T) {
	old := newTestKey(t, "Verified")
	fresh, err := trust.GenerateKey("ES256", "fresh-key")
	if err != nil {
		t.Fatal(err)
	}
	jwks := func(keys ...trust.SigningKey) string {
		set := `{"keys":[`
		for i, k := range keys {
			b, err := trust.MarshalJWKS(k.PublicJWK())
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				set += ","
			}
			s := string(b)
			set += s[strings.Index(s, "[")+1 : strings.LastIndex(s, "]")]
		}
		return set + "]}"
	}
	path := filepath.Join(t.TempDir(), "keys.json")
	writeFile(t, path, jwks(old.key))
	// The file is replaced as the docs ask (a new file renamed over it):
	// written in place, the timer could read it half written and log a
	// second refusal.
	replace := func(data string) {
		t.Helper()
		writeFile(t, path+".new", data)
		if err := os.Rename(path+".new", path); err != nil {
			t.Fatal(err)
		}
	}
	card := func(id string) string {
		return `{"adapter": {"id": "` + id + `", "name": "K", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	}
	logs := &lockedLog{}
	env := newEnvWith(t, "remote_refresh: 100ms\nkeys: [{trust: Verified, jwks: "+path+"}]\n", func(dir string) {
		signedFolder(t, old, filepath.Join(dir, "old"), card("org.test.oldkey"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"old-echo"}})
		signedFolder(t, testKey{key: fresh}, filepath.Join(dir, "fresh"), card("org.test.freshkey"), fakeSpec{ID: "org.test.inner2", Version: "1.0.0", Tools: []string{"fresh-echo"}})
	}, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	served := func(id string) bool { return env.h.Registry().Provider(id) != nil }
	if !served("org.test.oldkey") || served("org.test.freshkey") {
		t.Fatalf("at start: old %v fresh %v, want true false (%v)", served("org.test.oldkey"), served("org.test.freshkey"), env.d.Errors())
	}
	// Rotate: the file now holds the fresh key only. The timer alone
	// must notice (no folder changed, no refresh asked for).
	replace(jwks(fresh))
	for deadline := time.Now().Add(20 * time.Second); served("org.test.oldkey") || !served("org.test.freshkey"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("20 s after the rotation: old %v fresh %v, want false true (%v)", served("org.test.oldkey"), served("org.test.freshkey"), env.d.Errors())
		}
	}
	if e := env.d.Errors()[filepath.Join(env.dir, "old")]; !strings.Contains(e, "test-key") {
		t.Errorf("the unloaded unit's error %q should name its key id", e)
	}
	// A file left with no key is refused: it trusts nothing, said once.
	replace(`{"keys":[]}`)
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if served("org.test.freshkey") {
		t.Fatalf("still served after its key file was emptied")
	}
	if n := strings.Count(logs.String(), "a trusted key file was refused"); n != 1 || !strings.Contains(logs.String(), path) {
		t.Errorf("the refused file was logged %d times (want once, naming %s): %s", n, path, logs.String())
	}
	// Mended: both keys.
	replace(jwks(old.key, fresh))
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if !served("org.test.oldkey") || !served("org.test.freshkey") {
		t.Fatalf("after the file was mended: old %v fresh %v (%v)", served("org.test.oldkey"), served("org.test.freshkey"), env.d.Errors())
	}
}
