package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestResultErrorNamesHostTool: an isError result (and the other
// failures read from a result) named the tool by the server's own name,
// "mcp server p: tool bigiserror: …", where the caller called
// mcp-p-bigiserror and every other failure of a bridged call names the
// tool as the caller called it. The message names the host's tool, and
// the server's name for it.
func TestResultErrorNamesHostTool(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"p": p89Config(t, "plain", "p", "bigiserror")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	_, err = call(t, p, "mcp-p-bigiserror", nil, 10*time.Second)
	if abi.CodeOf(err) != abi.ProviderError {
		t.Fatalf("%v, want ProviderError", err)
	}
	if want := "mcp server p: tool mcp-p-bigiserror (bigiserror on the server): failed"; !strings.HasPrefix(err.Error(), "ProviderError: "+want) {
		t.Errorf("%.200s\nwant it to start %q", err, want)
	}
}
