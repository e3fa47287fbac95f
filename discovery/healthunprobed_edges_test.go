package discovery

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestHealthPathWithoutHTTPSaysUnprobed: a card's endpoints.health path
// ("/health") is joined to its endpoints.http or an http(s) rpc
// endpoint; beside a unix socket alone it was never probed and nothing
// said so (the built-in cards declared it so; they no longer do).
func TestHealthPathWithoutHTTPSaysUnprobed(t *testing.T) {
	logs := &lockedBuffer{}
	card := `{"adapter": {"id": "org.probe.nohttp", "name": "h", "version": "1.0.0", "protocol_version": "0.3.0"},
 "capabilities": {}, "skills": [{"id": "nh-echo", "name": "Echo", "permission_level": "public"}],
 "endpoints": {"rpc": "unix:///nonexistent/aios-probe.sock", "health": "/health"}}`
	env := newEnvTop(t, func(string) string { return `trust: {caps: {Untrusted: ["Network(localhost)"]}}` }, "",
		func(dir string) { writeFile(t, filepath.Join(dir, "nh.adapter.json"), card) },
		func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	testutil.Eventually(t, "the card read", func() bool {
		return env.h.Registry().Provider("org.probe.nohttp") != nil || len(env.d.Errors()) > 0
	})
	if errs := env.d.Errors(); len(errs) > 0 {
		t.Fatalf("the card was refused: %v", errs)
	}
	if l := logs.String(); !strings.Contains(l, "endpoints.health is not probed") || !strings.Contains(l, "org.probe.nohttp") {
		t.Fatalf("the log does not say the health path is not probed:\n%s", l)
	}
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	if len(lib.cards) == 0 {
		t.Fatal("no built-in cards")
	}
	for _, c := range lib.cards {
		if e := c.Endpoints; e != nil && e.Health != "" && healthEndpoint(c, e.RPC) == "" {
			t.Errorf("built-in card %s declares endpoints.health %q, which is not probed", c.Adapter.ID, e.Health)
		}
	}
}
