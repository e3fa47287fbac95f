package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
)

// TestCapsAndAudit: through the host, a URL server's tools need
// Network(host) of the caller (and capability_required's), and each call,
// refused or served, has an audit record saying untrusted.
func TestCapsAndAudit(t *testing.T) {
	s := edgeHTTPServer()
	h0 := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
	srv := httptest.NewServer(h0)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	aw, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Agents["nonet"] = config.Agent{Grants: []string{"CallTool(*)"}}
	cfg.Agents["net"] = config.Agent{Grants: []string{"CallTool(*)", "Network(127.0.0.1)"}}
	cfg.Agents["netspace"] = config.Agent{Grants: []string{"CallTool(*)", "Network(127.0.0.1)", "ReadSpace(files)"}}
	h, err := host.New(host.Options{Config: cfg, Audit: aw, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	b, err := New(Options{Servers: map[string]ServerConfig{"r": {URL: srv.URL + "/mcp", ConnectTimeout: 3 * time.Second,
		CapabilityRequired: map[string][]string{"sea*": {"ReadSpace(files)"}}}},
		Publish: func(ctx context.Context, p abi.Provider, source string) error {
			return h.ReplaceProvider(ctx, p, host.ProviderMeta{Source: "mcp:" + source, Trust: abi.Untrusted, Partial: true})
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		caller, want string
	}{{"nonet", "Network(127.0.0.1)"}, {"net", "ReadSpace(files)"}, {"netspace", ""}} {
		v, err := h.Call(ctx, &abi.ToolCall{Caller: tc.caller, Tool: "mcp-r-search", Params: map[string]any{}})
		t.Logf("%s: %v %v", tc.caller, v, err)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.caller, err)
			}
			continue
		}
		if err == nil || abi.CodeOf(err) != abi.CapabilityDenied || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.caller, err)
		}
	}
	h.Close()
	raw, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	n := 0
	for _, l := range lines {
		if strings.Contains(l, `"mcp-r-search`) {
			n++
			if !strings.Contains(l, `"untrusted":true`) {
				t.Errorf("record without untrusted: %s", l)
			}
		}
	}
	if n != 3 {
		t.Fatalf("%d audit records of mcp-r-search:\n%s", n, raw)
	}
}
