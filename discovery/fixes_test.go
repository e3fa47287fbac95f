package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/trust"
)

// withLogs sends discovery's log to buf (text, debug and up).
func withLogs(buf *testutil.SyncBuffer) func(*Options) {
	return func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
}

// logLines counts the lines of buf that contain every one of parts.
func logLines(buf *testutil.SyncBuffer, parts ...string) int {
	n := 0
	for _, l := range strings.Split(buf.String(), "\n") {
		all := l != ""
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			n++
		}
	}
	return n
}

// testKey is a signing key and the discovery config line trusting it.
type testKey struct {
	key trust.SigningKey
	cfg string
}

func newTestKey(t *testing.T, level string) testKey {
	t.Helper()
	key, err := trust.GenerateKey("ES256", "test-key")
	if err != nil {
		t.Fatal(err)
	}
	jwks, _ := trust.MarshalJWKS(key.PublicJWK())
	path := filepath.Join(t.TempDir(), "keys.json")
	writeFile(t, path, string(jwks))
	return testKey{key: key, cfg: "keys: [{trust: " + level + ", jwks: " + path + "}]\n"}
}

// revocableJWKS serves k's public key set over HTTP, or an empty set
// while revoke(true) holds: a vendor removing its key (and putting it
// back with revoke(false)).
func revocableJWKS(t *testing.T, k testKey) (url string, revoke func(bool)) {
	t.Helper()
	jwks, err := trust.MarshalJWKS(k.key.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	var revoked atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if revoked.Load() {
			_, _ = w.Write([]byte(`{"keys":[]}`))
			return
		}
		_, _ = w.Write(jwks)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, revoked.Store
}

// signedFolder writes a folder (card signed by k, pinning tool.fake made
// of inner) elsewhere and moves it to dst. It returns the fake's bytes.
func signedFolder(t *testing.T, k testKey, dst, card string, inner fakeSpec) []byte {
	t.Helper()
	stage := filepath.Join(t.TempDir(), "stage")
	writeFake(t, filepath.Join(stage, "tool.fake"), inner)
	pinned, ok, err := trust.PinArtifact([]byte(card), stage, "adapter.json")
	if err != nil || !ok {
		t.Fatalf("pin: %v %v", ok, err)
	}
	signed, err := trust.SignCard(pinned, k.key)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(stage, "adapter.json"), string(signed))
	if err := os.Rename(stage, dst); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dst, "tool.fake"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Item 2: a description displaced by a better one keeps a live provider,
// so it serves again when the better one goes (its generation was closed
// by the host on the swap; the provider under it was closed with it).
func TestDisplacedProviderServesAgain(t *testing.T) {
	env := newEnv(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "b.fake"), fakeSpec{ID: "org.test.es", Version: "1.0.0", Tools: []string{"es"}})
	})
	version := func(tool string) string {
		v, err := env.call(tool, 1)
		if err != nil {
			return err.Error()
		}
		return v["version"].(string)
	}
	if got := version("es"); got != "1.0.0" {
		t.Fatalf("es = %s", got)
	}
	// A copy under a name that sorts first wins; the original is shadowed.
	a := filepath.Join(env.dir, "a.fake")
	writeFake(t, a, fakeSpec{ID: "org.test.es", Version: "2.0.0", Tools: []string{"es"}})
	testutil.Eventually(t, "the copy serves", func() bool { return version("es") == "2.0.0" })
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the original serves again", func() bool { return version("es") == "1.0.0" })
	if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if got := version("es"); got != "1.0.0" {
		t.Fatalf("after refresh: es = %s", got)
	}

	// Seed §6.2: a yaml unit, then a card with its id, then the card goes.
	writeFake(t, filepath.Join(env.dir, "y", "tool.fake"), fakeSpec{ID: "org.test.y-inner", Version: "1.0.0", Tools: []string{"yc"}})
	writeFile(t, filepath.Join(env.dir, "y", "tool.aios.yaml"), "tool: {id: org.test.yc, name: YC, version: 1.0.0}\ncapabilities: [{id: yc, name: YC}]\n")
	testutil.Eventually(t, "yaml serves", func() bool { return version("yc") == "1.0.0" })
	writeFake(t, filepath.Join(env.dir, "c", "tool.fake"), fakeSpec{ID: "org.test.c-inner", Version: "1.0.0", Tools: []string{"yc"}})
	writeFile(t, filepath.Join(env.dir, "c", "adapter.json"), `{"adapter": {"id": "org.test.yc", "name": "YC card", "version": "2.0.0", "protocol_version": "0.3.0"}, "capabilities": {}, "skills": []}`)
	testutil.Eventually(t, "card serves", func() bool {
		rec := env.h.Registry().Provider("org.test.yc")
		return rec != nil && strings.HasSuffix(rec.Source, string(filepath.Separator)+"c")
	})
	if err := os.RemoveAll(filepath.Join(env.dir, "c")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "yaml serves again", func() bool {
		rec := env.h.Registry().Provider("org.test.yc")
		return rec != nil && strings.HasSuffix(rec.Source, string(filepath.Separator)+"y") && version("yc") == "1.0.0"
	})

	// Nothing leaks: what goes is closed, shadowed ones close with
	// discovery, serving ones with the host.
	writeFake(t, a, fakeSpec{ID: "org.test.es", Version: "3.0.0", Tools: []string{"es"}})
	testutil.Eventually(t, "a serves again", func() bool { return version("es") == "3.0.0" })
	if err := os.RemoveAll(filepath.Join(env.dir, "y")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the removed yaml unit's provider closed", func() bool {
		return !slices.Contains(env.load.open(), "org.test.y-inner@1.0.0")
	})
	_ = env.d.Close()
	if open := env.load.open(); !slices.Equal(open, []string{"org.test.es@3.0.0"}) {
		t.Fatalf("after discovery closed, open providers %v, want only the serving es@3.0.0", open)
	}
	_ = env.h.Close()
	if open := env.load.open(); len(open) != 0 {
		t.Fatalf("after the host closed, providers still open: %v", open)
	}
}

// Item 3: the most trusted description of an id wins, whatever its kind
// or path; a mix of trust levels is warned about.
func TestTrustWinsOverKindAndPath(t *testing.T) {
	k := newTestKey(t, "Verified")
	logs := &testutil.SyncBuffer{}
	env := newEnvWith(t, k.cfg, nil, withLogs(logs))
	signedDir := filepath.Join(env.dir, "zsigned")
	signedFolder(t, k, signedDir, `{"adapter": {"id": "org.test.trusted", "name": "Trusted", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "trusted-echo", "name": "Echo", "permission_level": "low"}], "artifact": {"path": "tool.fake"}}`,
		fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"trusted-echo"}})
	testutil.Eventually(t, "signed provider", func() bool { return env.h.Registry().Provider("org.test.trusted") != nil })

	// An unsigned bare file, sorting first, claims the id.
	bare := filepath.Join(env.dir, "aaa.fake")
	writeFake(t, bare, fakeSpec{ID: "org.test.trusted", Version: "6.6.6", Tools: []string{"trusted-echo"}})
	testutil.Eventually(t, "the unsigned file known", func() bool {
		return slices.ContainsFunc(env.d.Adapters(), func(a Adapter) bool { return a.Source == bare })
	})
	rec := env.h.Registry().Provider("org.test.trusted")
	if rec.Source != signedDir || rec.Trust != abi.Verified {
		t.Fatalf("serving %s at %v; want the signed folder at Verified", rec.Source, rec.Trust)
	}
	if n := logLines(logs, "level=WARN", "different trust levels", "org.test.trusted", "aaa.fake"); n != 1 {
		t.Fatalf("mixed trust warned about %d times, want once:\n%s", n, logs.String())
	}
	if v, err := env.call("trusted-echo", 1); err != nil || v["version"] != "1.0.0" {
		t.Fatalf("trusted-echo = %v, %v", v, err)
	}
	var shadowed bool
	for _, a := range env.d.Adapters() {
		if a.Source == bare {
			shadowed = !a.Active && a.Shadowed == signedDir
		}
	}
	if !shadowed {
		t.Fatalf("the unsigned file is not shadowed by the signed folder: %+v", env.d.Adapters())
	}
	// When the trusted one goes, the other takes over.
	if err := os.RemoveAll(signedDir); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the unsigned one serves", func() bool {
		v, err := env.call("trusted-echo", 1)
		return err == nil && v["version"] == "6.6.6"
	})
}

// Item 4: a unit whose provider id changes in place serves under the new
// id, and the old id goes, even when the two register the same tools.
func TestProviderIDChangeInPlace(t *testing.T) {
	env := newEnv(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "inc", "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"tool-inc"}})
		writeFile(t, filepath.Join(dir, "inc", "adapter.json"), `{"adapter": {"id": "org.test.inc", "name": "Inc", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "tool-inc", "name": "Inc", "permission_level": "low"}]}`)
		writeFake(t, filepath.Join(dir, "ren.fake"), fakeSpec{ID: "org.test.ren", Version: "1.0.0", Tools: []string{"ren"}})
		writeFake(t, filepath.Join(dir, "other.fake"), fakeSpec{ID: "org.test.other", Version: "1.0.0", Tools: []string{"zclash"}})
	})
	reg := env.h.Registry()
	provOf := func(tool string) string {
		e, err := reg.Resolve(tool, "")
		if err != nil {
			return err.Error()
		}
		return e.Provider.Info.ID
	}
	writeFile(t, filepath.Join(env.dir, "inc", "adapter.json"), `{"adapter": {"id": "org.test.inc2", "name": "Inc", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "tool-inc", "name": "Inc", "permission_level": "low"}]}`)
	testutil.Eventually(t, "tool-inc served by the new id", func() bool {
		return provOf("tool-inc") == "org.test.inc2" && reg.Provider("org.test.inc") == nil
	})
	if _, err := env.call("tool-inc", 1); err != nil {
		t.Fatal(err)
	}
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	// A new id whose tools clash with the old id's (ren) and with a third
	// provider's (zclash) is refused, and the old id serves again.
	ren := filepath.Join(env.dir, "ren.fake")
	writeFake(t, ren, fakeSpec{ID: "org.test.ren2", Version: "1.0.0", Tools: []string{"ren", "zclash"}})
	testutil.Eventually(t, "conflict reported", func() bool { return strings.Contains(env.d.Errors()[ren], "conflicts") })
	if provOf("ren") != "org.test.ren" || reg.Provider("org.test.ren2") != nil {
		t.Fatalf("ren served by %s; ren2 registered: %v", provOf("ren"), reg.Provider("org.test.ren2") != nil)
	}
	if v, err := env.call("ren", 1); err != nil || v["version"] != "1.0.0" {
		t.Fatalf("old version after a refused id change: %v %v", v, err)
	}
	// Without a clash the new id is registered before the old one goes.
	writeFake(t, ren, fakeSpec{ID: "org.test.ren3", Version: "1.0.1", Tools: []string{"ren"}})
	testutil.Eventually(t, "ren3 serves", func() bool { return provOf("ren") == "org.test.ren3" && reg.Provider("org.test.ren") == nil })
	if errs := env.d.Errors(); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
}

// Item 5: a refused change that is undone clears its error, for files
// and for remote cards.
func TestErrorClearedWhenFileRestored(t *testing.T) {
	k := newTestKey(t, "Verified")
	env := newEnv(t, k.cfg, nil)
	dst := filepath.Join(env.dir, "signed")
	orig := signedFolder(t, k, dst, `{"adapter": {"id": "org.test.signed", "name": "Signed", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "signed-echo", "name": "Echo", "permission_level": "low"}], "artifact": {"path": "tool.fake"}}`,
		fakeSpec{ID: "org.test.inner", Version: "1.0.0", Tools: []string{"signed-echo"}})
	testutil.Eventually(t, "signed provider", func() bool { return env.h.Registry().Provider("org.test.signed") != nil })
	writeFake(t, filepath.Join(dst, "tool.fake"), fakeSpec{ID: "org.test.inner", Version: "6.6.6", Tools: []string{"signed-echo"}})
	testutil.Eventually(t, "tampering refused", func() bool { return strings.Contains(env.d.Errors()[dst], "pins") })
	writeFile(t, filepath.Join(dst, "tool.fake"), string(orig))
	testutil.Eventually(t, "error cleared", func() bool { return len(env.d.Errors()) == 0 })
	for _, a := range env.d.Adapters() {
		if a.Err != "" {
			t.Fatalf("adapter still reports an error: %+v", a)
		}
	}
	if v, err := env.call("signed-echo", 1); err != nil || v["version"] != "1.0.0" {
		t.Fatalf("signed-echo = %v, %v", v, err)
	}

	// A remote card: good, tampered, good again.
	card := `{"adapter": {"id": "org.test.rem", "name": "Rem", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "rem-echo", "name": "Echo", "permission_level": "low"}]}`
	signed, err := trust.SignCard([]byte(card), k.key)
	if err != nil {
		t.Fatal(err)
	}
	var body atomic.Value
	body.Store(string(signed))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(body.Load().(string)))
	}))
	defer srv.Close()
	renv := newEnv(t, k.cfg+"remotes: [{url: "+srv.URL+"}]\n", nil)
	key := "remote:" + srv.URL
	if renv.h.Registry().Provider("org.test.rem") == nil {
		t.Fatalf("remote not registered: %v", renv.d.Errors())
	}
	ctx := context.Background()
	body.Store(strings.Replace(string(signed), `"Echo"`, `"Evil"`, 1))
	_, _ = renv.d.Refresh(ctx, "remote")
	if !strings.Contains(renv.d.Errors()[key], "does not verify") {
		t.Fatalf("tampered remote card not refused: %v", renv.d.Errors())
	}
	body.Store(string(signed))
	_, _ = renv.d.Refresh(ctx, "remote")
	if errs := renv.d.Errors(); len(errs) != 0 {
		t.Fatalf("errors after the remote card was restored: %v", errs)
	}
}

// Item 6: a card whose calls go over the network needs Network(host) at
// its trust level; require_signature wins over a remote's allow_unsigned.
func TestEndpointNeedsNetwork(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc": "2.0", "id": 1, "result": {"value": "reached"}}`))
	}))
	defer srv.Close()
	ssrf := `{"adapter": {"id": "org.probe.ssrf", "name": "ssrf", "version": "1.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "ssrf.fetch", "name": "Fetch", "permission_level": "public"}],
 "endpoints": {"rpc": "` + srv.URL + `/anything"}}`

	// Unsigned, in an Untrusted folder: refused, saying how to allow it.
	env := newEnv(t, "", func(dir string) { writeFile(t, filepath.Join(dir, "ssrf.adapter.json"), ssrf) })
	path := filepath.Join(env.dir, "ssrf.adapter.json")
	msg := env.d.Errors()[path]
	for _, want := range []string{"refused", "Network(127.0.0.1)", "Untrusted", "trust.folders", "Verified"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if _, err := env.call("ssrf.fetch", "secret"); abi.CodeOf(err) != abi.NotFound {
		t.Fatalf("ssrf.fetch registered: %v", err)
	}
	if hits.Load() != 0 {
		t.Fatalf("the host sent %d requests for an Untrusted card", hits.Load())
	}

	// The user vouches for the folder at a level whose caps hold Network(*).
	venv := newEnvTop(t, func(plugins string) string { return "trust: {folders: {" + plugins + ": Verified}}" }, "",
		func(dir string) { writeFile(t, filepath.Join(dir, "ssrf.adapter.json"), ssrf) }, nil)
	if errs := venv.d.Errors(); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if _, err := venv.call("ssrf.fetch", 1); err != nil || hits.Load() != 1 {
		t.Fatalf("ssrf.fetch from a Verified folder: %v, %d requests", err, hits.Load())
	}

	// Remotes: the configured URL's host is allowed; require_signature
	// refuses an unsigned card even with allow_unsigned; an endpoint on
	// another host needs Network(that host).
	var card atomic.Value
	card.Store(`{"adapter": {"id": "org.test.unsigned", "name": "U", "version": "1.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "u-echo", "name": "Echo", "permission_level": "low"}]}`)
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(card.Load().(string)))
	}))
	defer remote.Close()
	key := "remote:" + remote.URL
	renv := newEnv(t, "remotes: [{url: "+remote.URL+", allow_unsigned: true}]\n", nil)
	if renv.h.Registry().Provider("org.test.unsigned") == nil {
		t.Fatalf("allowed unsigned remote not registered: %v", renv.d.Errors())
	}
	card.Store(`{"adapter": {"id": "org.test.unsigned", "name": "U", "version": "1.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "u-echo", "name": "Echo", "permission_level": "low"}], "endpoints": {"rpc": "http://localhost:1/rpc"}}`)
	_, _ = renv.d.Refresh(context.Background(), "remote")
	if e := renv.d.Errors()[key]; !strings.Contains(e, "Network(localhost)") {
		t.Fatalf("a remote card sending calls to another host: %q", e)
	}
	senv := newEnv(t, "require_signature: true\nremotes: [{url: "+remote.URL+", allow_unsigned: true}]\n", nil)
	if e := senv.d.Errors()[key]; !strings.Contains(e, "require_signature") {
		t.Fatalf("require_signature with allow_unsigned: %q", e)
	}
	if senv.h.Registry().Provider("org.test.unsigned") != nil {
		t.Fatal("unsigned remote registered under require_signature")
	}
}

// Item 7: files discovery does not load are said once, at Info, not at
// every refresh.
func TestSkippedFilesLoggedOnce(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	env := newEnvWith(t, "", func(dir string) {
		writeFile(t, filepath.Join(dir, "notes.txt"), "not a provider")
		writeFake(t, filepath.Join(dir, "p", "tool.fake"), fakeSpec{ID: "org.test.p", Version: "1.0.0", Tools: []string{"p"}})
		writeFile(t, filepath.Join(dir, "p", "README.md"), "docs")
		writeFile(t, filepath.Join(dir, "p", "nested", "deeper.fake"), "{}")
		if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
			t.Fatal(err)
		}
	}, withLogs(logs))
	for range 2 {
		if _, err := env.d.Refresh(context.Background(), "local"); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"notes.txt", filepath.Join("p", "README.md"), filepath.Join("p", "nested"), "empty"} {
		if n := logLines(logs, "level=INFO", "="+filepath.Join(env.dir, f)); n != 1 {
			t.Errorf("%s logged %d times at Info, want once:\n%s", f, n, logs.String())
		}
	}
	if _, err := env.call("p", 1); err != nil {
		t.Fatal(err)
	}
	// A file put under the name again says it again (it might be what the
	// user just fixed). A write alone does not: what is said of it is of
	// its name (TestWrittenFileNotSaidAgain).
	writeFile(t, filepath.Join(env.dir, "p", ".README.md.new"), "more docs")
	if err := os.Rename(filepath.Join(env.dir, "p", ".README.md.new"), filepath.Join(env.dir, "p", "README.md")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "said again after a change", func() bool {
		return logLines(logs, "level=INFO", "="+filepath.Join(env.dir, "p", "README.md")) == 2
	})
}

// Item 1: the hash of a file stops with its context.
func TestHashFileHonoursContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.fake")
	writeFile(t, path, strings.Repeat("x", 1<<20))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := hashFile(ctx, path, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("hashing with a cancelled context: %v", err)
	}
	if _, err := hashFile(context.Background(), path, 1000); err == nil || !strings.Contains(err.Error(), "limits.max_plugin_bytes") {
		t.Fatalf("hashing a file over the limit: %v", err)
	}
}

// Item 1: a file larger than limits.max_plugin_bytes is refused before it
// is read or loaded.
func TestArtifactSizeBound(t *testing.T) {
	limit := func(string) string { return "limits: {max_plugin_bytes: 300}\n" }
	env := newEnvTop(t, limit, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "small.fake"), fakeSpec{ID: "org.test.small", Version: "1.0.0", Tools: []string{"small"}})
		many := make([]string, 40)
		for i := range many {
			many[i] = "tool-number-" + itoa(i)
		}
		writeFake(t, filepath.Join(dir, "big.fake"), fakeSpec{ID: "org.test.big", Version: "1.0.0", Tools: many})
	}, nil)
	big := filepath.Join(env.dir, "big.fake")
	if e := env.d.Errors()[big]; !strings.Contains(e, "limits.max_plugin_bytes") || !strings.Contains(e, "big.fake") {
		t.Fatalf("big file: %q", e)
	}
	if _, err := env.call("small", 1); err != nil {
		t.Fatal(err)
	}
	if env.h.Registry().Provider("org.test.big") != nil {
		t.Fatal("a file over the limit was loaded")
	}
}

// TestPlainYAMLInAdapterFolders: seed §3.1 scans
// /usr/share/aios/adapters/*.yaml: in an adapter folder (discovery.dirs)
// any *.yaml at the top is a description; in a plugin folder only
// tool.aios.yaml and *.aios.yaml are.
func TestPlainYAMLInAdapterFolders(t *testing.T) {
	env := newEnv(t, "", nil)
	adapters := t.TempDir()
	env.d.isCards[adapters] = true
	doc := "tool: {id: org.test.notes, name: Notes, version: 1.0.0}\ncapabilities: [{id: notes, name: Notes}]\n"
	inAdapters := filepath.Join(adapters, "notes.yaml")
	inPlugins := filepath.Join(env.dir, "notes.yaml")
	writeFile(t, inAdapters, doc)
	writeFile(t, inPlugins, doc)
	if !env.d.relevant(adapters, "notes.yaml") || env.d.relevant(env.dir, "notes.yaml") {
		t.Fatalf("relevant: adapters %v, plugins %v", env.d.relevant(adapters, "notes.yaml"), env.d.relevant(env.dir, "notes.yaml"))
	}
	// Parsed as a description: it names no artifact or endpoint.
	if _, err := env.d.load(context.Background(), inAdapters, nil); err == nil || !strings.Contains(err.Error(), "names neither an artifact") {
		t.Fatalf("load of %s: %v", inAdapters, err)
	}
}

// TestProcessRunningThroughLinkOrScript: software started through a
// symbolic link (/usr/bin/firefox → the real binary) or run as a script is
// detected as running; /proc/PID/exe is the resolved binary.
func TestProcessRunningThroughLinkOrScript(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	dir := t.TempDir()
	// A binary of its own, so that no other sleep counts.
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "firefox-bin")
	if err := os.WriteFile(real, data, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "firefox")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if processRunning(link) {
		t.Fatal("running before it started")
	}
	cmd := exec.Command(link, "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	testutil.Eventually(t, "the linked binary is seen running", func() bool { return processRunning(link) })

	script := filepath.Join(dir, "wrapper")
	writeFile(t, script, "#!/bin/sh\nsleep 30\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	sc := exec.Command(script)
	if err := sc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sc.Process.Kill(); _ = sc.Wait() }()
	testutil.Eventually(t, "the script is seen running", func() bool { return processRunning(script) })
}

// TestRootGoneAndBack: a plugin folder that is deleted has its providers
// removed, and when it is made again it is watched again and loaded; a
// folder missing at start is picked up when it appears. (Neither was
// watched again until a restart.)
func TestRootGoneAndBack(t *testing.T) {
	old := rootCheckInterval
	rootCheckInterval = 50 * time.Millisecond
	defer func() { rootCheckInterval = old }()
	env := newEnv(t, "", func(dir string) {
		writeFake(t, filepath.Join(dir, "a.fake"), fakeSpec{ID: "org.test.a", Version: "1.0.0", Tools: []string{"a"}})
	})
	if _, err := env.call("a", 1); err != nil {
		t.Fatal(err)
	}
	hold := filepath.Join(t.TempDir(), "hold")
	if err := os.Rename(env.dir, hold); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the provider of the gone folder is removed", func() bool { _, err := env.call("a", 1); return err != nil })
	if err := os.MkdirAll(env.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFake(t, filepath.Join(env.dir, "b.fake"), fakeSpec{ID: "org.test.b", Version: "1.0.0", Tools: []string{"b"}})
	testutil.Eventually(t, "the folder made again is loaded", func() bool { _, err := env.call("b", 1); return err == nil })
	// And watched: a later file is loaded too.
	writeFake(t, filepath.Join(env.dir, "c.fake"), fakeSpec{ID: "org.test.c", Version: "1.0.0", Tools: []string{"c"}})
	testutil.Eventually(t, "a file added later is loaded", func() bool { _, err := env.call("c", 1); return err == nil })
}

// TestUnixEndpointNeedsLocalNetwork: a card's unix:// endpoint made the host
// connect, as its own user, to any local socket with no grant at all, while
// an http endpoint on 127.0.0.1 needed Network(127.0.0.1). Whatever listens
// there takes the connection for the host's user: another aios-host's
// registry socket serves that uid as its default agent cli with every
// grant, so an unsigned card could drive that host's tools with grants it
// was never given. A plugin-folder card's local socket now needs
// Network(localhost) in its provider's trust caps (Verified and System by
// default); the built-in known adapters are exempt.
func TestUnixEndpointNeedsLocalNetwork(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "peer.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no unix sockets here: %v", err)
	}
	defer ln.Close()
	var conns atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				dec := json.NewDecoder(c)
				for {
					var req struct {
						ID json.RawMessage `json:"id"`
					}
					if dec.Decode(&req) != nil {
						return
					}
					fmt.Fprintf(c, `{"jsonrpc": "2.0", "id": %s, "result": {"value": "reached"}}`+"\n", req.ID)
				}
			}()
		}
	}()
	card := `{"adapter": {"id": "org.probe.peer", "name": "peer", "version": "1.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "peer.drive", "name": "Drive", "permission_level": "public"}],
 "endpoints": {"rpc": "unix://` + sock + `"}}`

	env := newEnv(t, "", func(dir string) { writeFile(t, filepath.Join(dir, "peer.adapter.json"), card) })
	msg := env.d.Errors()[filepath.Join(env.dir, "peer.adapter.json")]
	for _, want := range []string{"refused", "local socket", "Network(localhost)", "Untrusted", "trust.folders"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if _, err := env.call("peer.drive", 1); abi.CodeOf(err) != abi.NotFound {
		t.Fatalf("peer.drive registered from an unsigned card: %v", err)
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the host connected %d times for an Untrusted card", n)
	}

	venv := newEnvTop(t, func(plugins string) string { return "trust: {folders: {" + plugins + ": Verified}}" }, "",
		func(dir string) { writeFile(t, filepath.Join(dir, "peer.adapter.json"), card) }, nil)
	if errs := venv.d.Errors(); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if v, err := venv.call("peer.drive", 1); err != nil || conns.Load() != 1 {
		t.Fatalf("peer.drive from a Verified folder: %v, %v, %d connections", v, err, conns.Load())
	}
}
