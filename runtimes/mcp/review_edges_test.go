package mcp

import (
	"context"
	"strings"
	"testing"
)

// TestDescriptionKeepsCommandLine: 691a8b7 stopped the bridge's
// errors from telling callers a stdio server's command line (host paths,
// arguments such as --api-key=…), but the provider's description still
// held it whole ("Tools of the MCP server fake (/path/to/fake
// --api-key=…), imported by the MCP bridge") until the server gave a
// title — for good when it gives none — and aios/registry.search and
// info show a provider's description to every peer, over HTTP too (only
// its source is hidden there). The description now names the server by
// its config key, as the errors do; a URL server keeps its redacted URL.
func TestDescriptionKeepsCommandLine(t *testing.T) {
	b := &Bridge{ctx: context.Background()}
	cfg := ServerConfig{Command: "/home/alice/bin/mcp-notes", Args: []string{"--api-key=s3cr3t-token"}}
	s := newServer(b, "notes", cfg, nil)
	defer s.cancel()
	desc := s.prov.table.Load().reg.Provider.Description
	for _, leak := range []string{cfg.Command, "s3cr3t-token"} {
		if strings.Contains(desc, leak) {
			t.Errorf("the provider's description quotes the server's command line (%q): %s", leak, desc)
		}
	}
	if !strings.Contains(desc, "mcp.servers.notes") {
		t.Errorf("the description does not name the server's config key mcp.servers.notes: %s", desc)
	}
	u := newServer(b, "web", ServerConfig{URL: "https://mcp.example.com/v1?key=s3cr3t"}, nil)
	defer u.cancel()
	if desc := u.prov.table.Load().reg.Provider.Description; !strings.Contains(desc, "https://mcp.example.com/v1") || strings.Contains(desc, "s3cr3t") {
		t.Errorf("URL server's description %q: want its URL without the query", desc)
	}
}
