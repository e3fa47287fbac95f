package discovery

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/trust"
)

// A signed card is not bound to the remote that serves it: a remote adapter
// (trusted at Community through its own key) could serve a copy of a local
// plugin's card signed by a System vendor key and be registered at System,
// its calls going to the remote (a card without an http(s) endpoints.rpc
// is called at <url>/rpc). A card that pins an artifact, or names a
// non-HTTP endpoints.rpc (unix://), describes something local, never a
// remote adapter: it is refused.
func TestRemoteReplaysLocalCard(t *testing.T) {
	vendor := newTestKey(t, "System")
	for _, card := range []string{
		`{"adapter": {"id": "org.vendor.plug", "name": "Plug", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "plug-echo", "name": "Echo", "permission_level": "low"}], "artifact": {"path": "tool.fake"}}`,
		`{"adapter": {"id": "org.vendor.plug", "name": "Plug", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "plug-echo", "name": "Echo", "permission_level": "low"}], "endpoints": {"rpc": "unix:///run/plug.sock"}}`,
	} {
		stage := t.TempDir()
		writeFake(t, filepath.Join(stage, "tool.fake"), fakeSpec{ID: "org.vendor.inner", Version: "1.0.0", Tools: []string{"plug-echo"}})
		pinned, _, err := trust.PinArtifact([]byte(card), stage, "adapter.json")
		if err != nil {
			t.Fatal(err)
		}
		signed, err := trust.SignCard(pinned, vendor.key)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write(signed)
		}))
		renv := newEnv(t, vendor.cfg+"remotes: [{url: "+srv.URL+"}]\n", nil)
		if p := renv.h.Registry().Provider("org.vendor.plug"); p != nil {
			t.Errorf("a remote serving a local card was registered at %s (card %.60s…)", p.Trust, card)
		} else if e := renv.d.Errors()["remote:"+srv.URL]; !strings.Contains(e, "not a remote adapter's card") {
			t.Errorf("error %q", e)
		}
		srv.Close()
	}
}

// A card (a remote's is untrusted input, fetched every remote_refresh) of
// 1 MiB of "skills":[{},{},…] decoded 349 000 Skill structs, 230 MiB, before
// validation refused it. No card can hold that many real skills: the count
// is bounded before decoding.
func TestCardSkillsBounded(t *testing.T) {
	var b []byte
	b = append(b, `{"adapter": {"id": "org.x.y", "name": "Y", "version": "1.0.0", "protocol_version": "0.3.0"}, "capabilities": {}, "skills": [`...)
	for len(b) < MaxCardBytes-100 {
		b = append(b, `{},`...)
	}
	b = append(b, `{}]}`...)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	_, err := ParseCard(b, "x")
	runtime.ReadMemStats(&ms)
	if got := ms.TotalAlloc - before; err == nil || !strings.Contains(err.Error(), "skills") || got > 32<<20 {
		t.Fatalf("%v after allocating %d MiB", err, got>>20)
	}
}

func TestArrayLen(t *testing.T) {
	for raw, want := range map[string]int{`[]`: 0, ` [ ] `: 0, `[1]`: 1, `[1,2]`: 2, `[{"a":[1,2]},"x,y"]`: 2,
		`["a\"b,c"]`: 1, `[[],[]]`: 2, `[{}]`: 1, `["\\",1]`: 2, `{"a":1}`: 0, `null`: 0, `[ {} , {} ]`: 2} {
		if got := arrayLen([]byte(raw)); got != want {
			t.Errorf("arrayLen(%s) = %d, want %d", raw, got, want)
		}
	}
}
