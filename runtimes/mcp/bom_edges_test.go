package mcp

import (
	"strings"
	"testing"
	"time"
)

// TestStdioServerBOMAccepted: a stdio server whose stdout starts with a
// UTF-8 byte order mark (one writing through .NET's Encoding.UTF8, or
// Python's utf-8-sig, does) never connected: every attempt failed with
// "the server wrote text that is not JSON-RPC to stdout ("\ufeff{…"):
// invalid character 'ï' …; its logs go to stderr", and it was retried
// for ever (found by p180). The host's own MCP server ignores a BOM from
// a client (RFC 8259 allows it; mcpserver TestStdioBOM); so does the
// bridge, at the start of a server's stdout.
func TestStdioServerBOMAccepted(t *testing.T) {
	sc := p180Config(t)
	sc.Env["AIOS_MCP_P180_BOM"] = "1"
	sc.ConnectTimeout = 5 * time.Second
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"p": sc})
	if err != nil {
		t.Fatalf("a server starting its stdout with a BOM: %v", err)
	}
	v, err := call(t, rec.provider("org.aios.mcp.p"), "mcp-p-echo", nil, 10*time.Second)
	if err != nil || !strings.Contains(formatValue(v), "echo 1") {
		t.Fatalf("echo: %s %v", formatValue(v), err)
	}
}
