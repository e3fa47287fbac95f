package mcp

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCrashErrorKeepsCommandLine: a stdio server that dies during a
// call is ProviderCrashed, as a crashed worker of any runtime; the error
// its caller sees named the server by its whole command line ("mcp
// server fake (/abs/path/to/server -test.run=^$) died during …"): the
// host's paths and the server's arguments — where tokens are often passed
// (--api-key …) — reached every caller, MCP clients and remote agents
// included, and the audit log. The JS and Python runtimes name a file by
// its base name only, and the bridge's own NotFound for a server that is
// down leaves the command line out on purpose (docs/mcp.md). It now names
// the server's config key; the command line stays in the host log.
func TestCrashErrorKeepsCommandLine(t *testing.T) {
	cfg := fakeConfig(t, "good")
	cfg.Args = append(cfg.Args, "--api-key=s3cr3t-token")
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": cfg})
	if err != nil {
		t.Fatal(err)
	}
	_, err = call(t, rec.provider("org.aios.mcp.fake"), "mcp-fake-die", map[string]any{}, 10*time.Second)
	if abi.CodeOf(err) != abi.ProviderCrashed {
		t.Fatalf("err = %v, want ProviderCrashed", err)
	}
	msg := err.Error()
	for _, leak := range []string{cfg.Command, "s3cr3t-token"} {
		if strings.Contains(msg, leak) {
			t.Errorf("the caller's error quotes the server's command line (%q): %s", leak, msg)
		}
	}
	if !strings.Contains(msg, "mcp.servers.fake") {
		t.Errorf("the error does not name the server's config key mcp.servers.fake: %s", msg)
	}
}

// TestMCPTextNotUnicode (no defect; guards docs/mcp.md "Text that is
// not Unicode"): a bridged server's text holding an escaped lone
// surrogate or a byte that is not UTF-8 reaches the caller with U+FFFD in
// its place, where the other runtimes refuse such text with
// InvalidResult; the call is not failed and the connection stays up.
func TestMCPTextNotUnicode(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "text")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	for _, tool := range []string{"mcp-fake-lone", "mcp-fake-badutf8"} {
		v, err := call(t, p, tool, map[string]any{}, 5*time.Second)
		want := map[string]any{"content": []any{map[string]any{"type": "text", "text": "a\ufffdb"}}}
		if err != nil || !reflect.DeepEqual(v, want) {
			t.Errorf("%s: %#v %v; want %#v, as docs/mcp.md says", tool, v, err, want)
		}
	}
	if _, err := call(t, p, "mcp-fake-echo", map[string]any{"message": "x"}, 5*time.Second); err != nil {
		t.Errorf("the connection did not stay up: %v", err)
	}
}

// TestVanishedToolIsNotFound: a tool the server listed but no longer
// has is answered by MCP with -32602 ("unknown tool"), which the bridge
// gave the caller as InvalidParams, blaming its params, where a tool that
// does not exist is NotFound in every runtime. It is NotFound now.
func TestVanishedToolIsNotFound(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "text")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = call(t, rec.provider("org.aios.mcp.fake"), "mcp-fake-vanish", map[string]any{}, 5*time.Second)
	if abi.CodeOf(err) != abi.NotFound || !strings.Contains(err.Error(), "unknown tool vanish") {
		t.Errorf("err = %v; want NotFound quoting the server's unknown tool", err)
	}
}
