package discovery

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/trust"
)

// TestCaseVariantMembersRefused: encoding/json matches member names
// without regard to case, so a skill holding both "permission_level" and
// "Permission_level" is read as whichever comes last in the file. JCS sorts
// members, so both orders carry the same signature: whoever holds a signed
// card could pick the level by reordering it, and any case-sensitive reader
// (a reviewer's jq, the signer's tool) sees another card than the host. A
// member name that matches a field only when case is ignored is refused.
func TestCaseVariantMembersRefused(t *testing.T) {
	k := newTestKey(t, "Verified")
	card := `{"adapter": {"id": "org.example.cased", "name": "Cased", "version": "1.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "endpoints": {"rpc": "https://127.0.0.1:1/rpc"},
 "skills": [{"id": "cased-op", "name": "Op", "permission_level": "critical", "Permission_level": "public"}]}`
	signed, err := trust.SignCard([]byte(card), k.key)
	if err != nil {
		t.Fatal(err)
	}
	a, b := `"Permission_level": "public"`, `"permission_level": "critical"`
	if !strings.Contains(string(signed), a) || !strings.Contains(string(signed), b) {
		t.Fatalf("unexpected signed form:\n%s", signed)
	}
	swapped := strings.NewReplacer(a, b, b, a).Replace(string(signed))
	keys := trust.NewKeyStore(nil)
	keys.Add(keysOf(t, k)...)
	var levels []string
	for _, c := range []string{string(signed), swapped} {
		if _, err := trust.VerifyCard(context.Background(), []byte(c), keys); err != nil {
			t.Fatalf("reordering a signed card broke its signature: %v", err)
		}
		parsed, err := ParseCard([]byte(c), "adapter.json")
		if err != nil {
			if !strings.Contains(err.Error(), "Permission_level") || !strings.Contains(err.Error(), "case") {
				t.Errorf("error should name the member and say names are case-sensitive: %v", err)
			}
			continue
		}
		levels = append(levels, parsed.Skills[0].PermissionLevel)
	}
	if len(levels) == 2 && levels[0] != levels[1] {
		t.Fatalf("one signature, two cards: the host reads permission_level %q or %q depending on member order", levels[0], levels[1])
	}
	if len(levels) != 0 {
		t.Fatalf("a card with a case-variant member name was accepted (%v)", levels)
	}
}

// keysOf returns k's public key as trusted keys (Verified).
func keysOf(t *testing.T, k testKey) []*trust.Key {
	t.Helper()
	jwks, err := trust.MarshalJWKS(k.key.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	ks, err := trust.ParseJWKS(jwks, abi.Verified, "test")
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// TestUnsignedPinChecked: a card's artifact.sha256 (also in a
// tool.aios.yaml, which cannot be signed) was ignored unless the card was
// signed: a card pinning its code loaded a file of any content, silently.
// The pin the card states is checked whether or not it is signed.
func TestUnsignedPinChecked(t *testing.T) {
	wrong := strings.Repeat("0", 64)
	env := newEnv(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "j", "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"j-echo"}})
		writeFile(t, filepath.Join(dir, "j", "adapter.json"), `{
  "adapter": {"id": "org.test.json", "name": "J", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake", "sha256": "`+wrong+`"}}`)
		writeFake(t, filepath.Join(dir, "y", "tool.fake"), fakeSpec{ID: "org.test.inner2", Version: "1.0.0", Tools: []string{"y-echo"}})
		writeFile(t, filepath.Join(dir, "y", "tool.aios.yaml"), "tool: {id: org.test.yaml, name: Y, version: 1.0.0}\nartifact: {path: tool.fake, sha256: '"+wrong+"'}\n")
	})
	for _, c := range []struct{ id, unit string }{{"org.test.json", "j"}, {"org.test.yaml", "y"}} {
		if p := env.h.Registry().Provider(c.id); p != nil {
			t.Errorf("%s loaded although its file does not have the sha256 its description pins", c.id)
		}
		e := env.d.Errors()[filepath.Join(env.dir, c.unit)]
		if !strings.Contains(e, wrong) || !strings.Contains(e, "tool.fake") {
			t.Errorf("%s: error %q should name the file and the pin", c.unit, e)
		}
	}
}

// TestImportedFileEditReloads: a folder provider's artifact imports
// the files beside it (a JS tool.js imports ./lib.js, a Python tool
// imports helper.py), but the unit's digest covered only the artifact and
// its description: an edit of lib.js, watched or found by
// aios/registry.refresh, was "unchanged" and never loaded — the old code
// served until the artifact itself changed or the host restarted.
func TestImportedFileEditReloads(t *testing.T) {
	env := newEnv(t, "watch: false\n", func(dir string) {
		writeFake(t, filepath.Join(dir, "f", "tool.fake"), fakeSpec{ID: "org.test.f", Version: "1.0.0", Tools: []string{"f-echo"}})
		writeFile(t, filepath.Join(dir, "f", "lib.js"), "export const word = 'one';\n")
		writeFake(t, filepath.Join(dir, "c", "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"c-echo"}})
		writeFile(t, filepath.Join(dir, "c", "sub", "helper.py"), "WORD = 'one'\n")
		writeFile(t, filepath.Join(dir, "c", "adapter.json"), `{
  "adapter": {"id": "org.test.c", "name": "C", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`)
	})
	if env.h.Registry().Provider("org.test.f") == nil || env.h.Registry().Provider("org.test.c") == nil {
		t.Fatalf("not loaded: %v", env.d.Errors())
	}
	before := env.load.loads.Load()
	writeFile(t, filepath.Join(env.dir, "f", "lib.js"), "export const word = 'two';\n")
	writeFile(t, filepath.Join(env.dir, "c", "sub", "helper.py"), "WORD = 'two'\n")
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if got := env.load.loads.Load() - before; got != 2 {
		t.Fatalf("%d of the 2 units whose imported files changed were loaded again", got)
	}
	// Nothing changed: nothing is loaded again.
	before = env.load.loads.Load()
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if got := env.load.loads.Load() - before; got != 0 {
		t.Fatalf("%d units loaded again though nothing changed", got)
	}
}

// TestRevokedKeyStopsServing: a signed provider whose key its owner
// removed from the JWKS (or whose key expired) kept serving at the key's
// trust: aios/registry.refresh found the unit unchanged and never looked at
// its signature again, though a restart would refuse it ("unknown signing
// key"). A remote adapter's card likewise: its refetch failed to verify,
// and the version already registered stayed. After the fix a refresh
// gives what a restart would.
func TestRevokedKeyStopsServing(t *testing.T) {
	k := newTestKey(t, "Verified")
	hubURL, revoked := revocableJWKS(t, k)
	remoteCard, err := trust.SignCard([]byte(`{"adapter": {"id": "org.test.far", "name": "Far", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "far-echo", "name": "Far", "permission_level": "low"}]}`), k.key)
	if err != nil {
		t.Fatal(err)
	}
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(remoteCard)
	}))
	defer remote.Close()
	card := `{"adapter": {"id": "org.test.rev", "name": "R", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	env := newEnv(t, "watch: false\nkeys: [{trust: Verified, jwks_url: "+hubURL+"}]\nremotes: [{url: "+remote.URL+"}]\n", func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "rev"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"rev-echo"}})
	})
	for _, id := range []string{"org.test.rev", "org.test.far"} {
		if p := env.h.Registry().Provider(id); p == nil || p.Trust.String() != "Community" && p.Trust.String() != "Verified" {
			t.Fatalf("%s not loaded as signed: %v", id, env.d.Errors())
		}
	}
	revoked(true)
	env.d.Keys().TTL, env.d.Keys().MinRefetch = 0, 0 // refetch at once
	if _, err := env.d.Refresh(context.Background(), "all"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ id, unit string }{{"org.test.rev", filepath.Join(env.dir, "rev")}, {"org.test.far", "remote:" + remote.URL}} {
		if p := env.h.Registry().Provider(c.id); p != nil {
			t.Errorf("%s still served at %s after its key was removed and the host refreshed", c.id, p.Trust)
		}
		if e := env.d.Errors()[c.unit]; !strings.Contains(e, "unknown signing key") {
			t.Errorf("%s: error %q should say the key is unknown now", c.unit, e)
		}
	}
	// The key back: the next refresh serves them again.
	revoked(false)
	if _, err := env.d.Refresh(context.Background(), "all"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"org.test.rev", "org.test.far"} {
		if env.h.Registry().Provider(id) == nil {
			t.Errorf("%s not served again once its key is back: %v", id, env.d.Errors())
		}
	}
}

// TestRemoteResignedAtLowerTrust: a remote that serves the same card
// signed by another key of lower trust was kept at the first key's trust:
// the refetched card's digest (its content without signature) was the
// same, so the candidate at the new trust was dropped.
func TestRemoteResignedAtLowerTrust(t *testing.T) {
	high, low := newTestKey(t, "Verified"), newTestKey(t, "Community")
	low.key.KeyID = "low-key"
	jwksLow, err := trust.MarshalJWKS(low.key.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	lowFile := filepath.Join(t.TempDir(), "low.json")
	writeFile(t, lowFile, string(jwksLow))
	content := []byte(`{"adapter": {"id": "org.test.far", "name": "Far", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "far-echo", "name": "Far", "permission_level": "low"}], "endpoints": {"rpc": "http://127.0.0.1:1/rpc"}}`)
	byHigh, err := trust.SignCard(content, high.key)
	if err != nil {
		t.Fatal(err)
	}
	byLow, err := trust.SignCard(content, low.key)
	if err != nil {
		t.Fatal(err)
	}
	var lowered atomic.Bool
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if lowered.Load() {
			_, _ = w.Write(byLow)
			return
		}
		_, _ = w.Write(byHigh)
	}))
	defer remote.Close()
	keys := strings.TrimSuffix(high.cfg, "]\n") + ", {trust: Community, jwks: " + lowFile + "}]\n"
	env := newEnv(t, "watch: false\n"+keys+"remotes: [{url: "+remote.URL+"}]\n", nil)
	if p := env.h.Registry().Provider("org.test.far"); p == nil || p.Trust.String() != "Verified" {
		t.Fatalf("remote not loaded at Verified: %v %v", p, env.d.Errors())
	}
	lowered.Store(true)
	if _, err := env.d.Refresh(context.Background(), "remote"); err != nil {
		t.Fatal(err)
	}
	if p := env.h.Registry().Provider("org.test.far"); p == nil || p.Trust.String() != "Community" {
		got := "nothing"
		if p != nil {
			got = p.Trust.String()
		}
		t.Fatalf("the remote card now signed by a Community key is served at %s (errors %v)", got, env.d.Errors())
	}
}

// TestCodeDigestKinds: what counts as a folder unit's code follows
// its artifact's runtime: a JS tool's imports (scripts, JSON, text), a
// Python tool's modules — not the data a Python tool reads or writes at
// run time (a cache.json written beside it must not reload it on every
// write) — and nothing for a WASM module.
func TestCodeDigestKinds(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"tool.js", "lib.js", "data.json", "tool.py", "helper.py", "tool.wasm", "notes.md"} {
		writeFile(t, filepath.Join(dir, f), "v1")
	}
	ctx := context.Background()
	digests := func() map[string]string {
		m := map[string]string{}
		for _, a := range []string{"tool.js", "tool.py", "tool.wasm"} {
			m[a] = codeDigest(ctx, dir, filepath.Join(dir, a), 1<<20)
		}
		return m
	}
	if d := digests(); d["tool.wasm"] != "" || d["tool.js"] == "" || d["tool.py"] == "" {
		t.Fatalf("digests %v", d)
	}
	for _, c := range []struct {
		file    string
		changes []string // artifacts whose digest changes
	}{
		{"lib.js", []string{"tool.js"}},
		{"data.json", []string{"tool.js"}},
		{"helper.py", []string{"tool.py"}},
		{"notes.md", nil},
	} {
		before := digests()
		writeFile(t, filepath.Join(dir, c.file), "v2 of "+c.file)
		after := digests()
		for _, a := range []string{"tool.js", "tool.py", "tool.wasm"} {
			if changed := before[a] != after[a]; changed != slices.Contains(c.changes, a) {
				t.Errorf("editing %s: the digest of %s's unit changed = %v", c.file, a, changed)
			}
		}
	}
}

// TestUnpinnedSignedCardHint: a card signed without an "artifact"
// member beside tool.fake was refused with "sign it with `aios-host sign`,
// which pins it" — but it was signed with aios-host sign, which pins only
// what "artifact" names. The error says what to add.
func TestUnpinnedSignedCardHint(t *testing.T) {
	k := newTestKey(t, "Verified")
	signed, err := trust.SignCard([]byte(`{"adapter": {"id": "org.test.np", "name": "N", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": []}`), k.key)
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, k.cfg, func(dir string) {
		writeFake(t, filepath.Join(dir, "np", "tool.fake"), fakeSpec{ID: "org.test.np", Version: "1.0.0", Tools: []string{"np-echo"}})
		writeFile(t, filepath.Join(dir, "np", "adapter.json"), string(signed))
	})
	e := env.d.Errors()[filepath.Join(env.dir, "np")]
	if !strings.Contains(e, `"artifact": {"path": "tool.fake"}`) {
		t.Fatalf("error should say to add the artifact member: %q", e)
	}
}

// TestRotatedKeyMaterialStopsServing: the hub replaced the key
// material under the same kid (a rotation after a compromise). The
// unchanged card no longer verifies ("tampered card or wrong key": its
// bytes did not change, so its key did), and a restart would refuse it;
// a refresh must too.
func TestRotatedKeyMaterialStopsServing(t *testing.T) {
	k := newTestKey(t, "Verified")
	jwks, err := trust.MarshalJWKS(k.key.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := trust.GenerateKey("ES256", k.key.KeyID)
	if err != nil {
		t.Fatal(err)
	}
	rotatedJWKS, err := trust.MarshalJWKS(fresh.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	var rotated atomic.Bool
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if rotated.Load() {
			_, _ = w.Write(rotatedJWKS)
			return
		}
		_, _ = w.Write(jwks)
	}))
	defer hub.Close()
	card := `{"adapter": {"id": "org.test.rot", "name": "R", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	env := newEnv(t, "watch: false\nkeys: [{trust: Verified, jwks_url: "+hub.URL+"}]\n", func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "rot"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"rot-echo"}})
	})
	if env.h.Registry().Provider("org.test.rot") == nil {
		t.Fatalf("not loaded: %v", env.d.Errors())
	}
	rotated.Store(true)
	env.d.Keys().TTL, env.d.Keys().MinRefetch = 0, 0
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if p := env.h.Registry().Provider("org.test.rot"); p != nil {
		t.Fatalf("still served at %s after the key material under its kid was replaced", p.Trust)
	}
}

// TestKeyFetchRetried: a signed unit refused because its key set could not
// be fetched (the hub down when the host started) is tried again every
// remote_refresh and loads once the hub answers, without a change in its
// folder, a refresh or a restart; the failure is logged once at error.
func TestKeyFetchRetried(t *testing.T) {
	k := newTestKey(t, "Verified")
	jwks, err := trust.MarshalJWKS(k.key.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	var up atomic.Bool
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !up.Load() {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write(jwks)
	}))
	defer hub.Close()
	card := `{"adapter": {"id": "org.test.later", "name": "L", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`
	logs := &lockedLog{}
	env := newEnvWith(t, "remote_refresh: 150ms\nkeys: [{trust: Verified, jwks_url: "+hub.URL+"}]\n", func(dir string) {
		signedFolder(t, k, filepath.Join(dir, "later"), card, fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"later-echo"}})
	}, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		o.keyStore = func(s *trust.KeyStore) { s.MinRefetch = 0 }
	})
	unit := filepath.Join(env.dir, "later")
	if p := env.h.Registry().Provider("org.test.later"); p != nil {
		t.Fatalf("loaded while its key hub was down")
	}
	if e := env.d.Errors()[unit]; !strings.Contains(e, "unknown signing key") || !strings.Contains(e, "503") {
		t.Fatalf("error %q should say the key set could not be fetched", e)
	}
	time.Sleep(500 * time.Millisecond) // a few retries while still down
	up.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for env.h.Registry().Provider("org.test.later") == nil {
		if time.Now().After(deadline) {
			t.Fatalf("not loaded after its key hub came back: %v", env.d.Errors())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if p := env.h.Registry().Provider("org.test.later"); p.Trust.String() != "Verified" {
		t.Fatalf("trust %s", p.Trust)
	}
	if _, failed := env.d.Errors()[unit]; failed {
		t.Fatalf("error kept after loading: %v", env.d.Errors())
	}
	if n := strings.Count(logs.String(), "level=ERROR"); n != 1 {
		t.Errorf("%d errors logged, want 1 (the retries at debug):\n%s", n, logs.String())
	}
}

// lockedLog is a log sink safe for concurrent writers.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
