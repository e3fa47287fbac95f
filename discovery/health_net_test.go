package discovery

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// A card's health URL and endpoints.http are hosts the host would reach
// (every HealthInterval): they need Network(host) at the card's trust like
// its rpc endpoint, and a refused card makes the host send nothing at all.
func TestHealthURLNeedsNetwork(t *testing.T) {
	old := HealthInterval
	HealthInterval = 20 * time.Millisecond
	defer func() { HealthInterval = old }()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	cards := map[string]string{
		// rpc on a unix socket (local: needs nothing), health on a network host.
		"h1.adapter.json": `{"adapter": {"id": "org.probe.health1", "name": "h", "version": "1.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "h1-echo", "name": "Echo", "permission_level": "public"}],
 "endpoints": {"rpc": "unix:///nonexistent/aios-probe.sock", "health": "` + srv.URL + `/internal-admin"}}`,
		// a health path on endpoints.http.
		"h2.adapter.json": `{"adapter": {"id": "org.probe.health2", "name": "h", "version": "1.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "h2-echo", "name": "Echo", "permission_level": "public"}],
 "endpoints": {"rpc": "unix:///nonexistent/aios-probe.sock", "http": "` + srv.URL + `", "health": "/health"}}`,
		// refused for its rpc endpoint: its health URL is not probed either.
		"h3.adapter.json": `{"adapter": {"id": "org.probe.health3", "name": "h", "version": "1.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "h3-echo", "name": "Echo", "permission_level": "public"}],
 "endpoints": {"rpc": "http://localhost:1/rpc", "health": "` + srv.URL + `/refused-but-probed"}}`,
	}
	env := newEnv(t, "", func(dir string) {
		for name, c := range cards {
			writeFile(t, filepath.Join(dir, name), c)
		}
	})
	testutil.Eventually(t, "three refusals", func() bool { return len(env.d.Errors()) == 3 })
	time.Sleep(200 * time.Millisecond)
	if n := hits.Load(); n > 0 {
		t.Fatalf("Untrusted cards made the host send %d requests to %s", n, srv.URL)
	}
	for unit, e := range env.d.Errors() {
		if !strings.Contains(e, "refused") || !strings.Contains(e, "Network(127.0.0.1)") && !strings.Contains(e, "Network(localhost)") {
			t.Errorf("%s: %s", unit, e)
		}
		for _, id := range []string{"org.probe.health1", "org.probe.health2", "org.probe.health3"} {
			if env.h.Registry().Provider(id) != nil {
				t.Errorf("%s registered", id)
			}
		}
	}
}

// A card whose trust allows its health host is probed once it serves, and
// its health reaches the registry's provider.
func TestHealthProbedOnceServing(t *testing.T) {
	old := HealthInterval
	HealthInterval = 20 * time.Millisecond
	defer func() { HealthInterval = old }()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	card := `{"adapter": {"id": "org.probe.healthok", "name": "h", "version": "1.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "hok-echo", "name": "Echo", "permission_level": "public"}],
 "endpoints": {"rpc": "unix:///nonexistent/aios-probe.sock", "health": "` + srv.URL + `/health"}}`
	env := newEnvTop(t, func(string) string { return `trust: {caps: {Untrusted: ["Network(127.0.0.1)", "Network(localhost)"]}}` }, "", func(dir string) {
		writeFile(t, filepath.Join(dir, "hok.adapter.json"), card)
	}, nil)
	testutil.Eventually(t, "registered and probed", func() bool {
		rec := env.h.Registry().Provider("org.probe.healthok")
		if rec == nil {
			return false
		}
		hp, ok := rec.Impl.(interface{ Health() (bool, string) })
		if !ok {
			t.Fatalf("registered provider %T reports no health", rec.Impl)
		}
		healthy, why := hp.Health()
		return !healthy && strings.Contains(why, "503")
	})
	if hits.Load() == 0 {
		t.Fatal("no probe reached the server")
	}
}
