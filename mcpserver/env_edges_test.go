package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestCloseCancelSaysWhy: an MCP call cancelled because the server
// closes (aios-host run on SIGTERM) answers an error that says the host is
// shutting down; before, its text was only "context canceled".
func TestCloseCancelSaysWhy(t *testing.T) {
	h, s := newTestHost(t, "")
	started := make(chan struct{}, 1)
	addSlowTool(t, h, started)
	for deadline := time.Now().Add(5 * time.Second); !contains(s.Tools(), "slow"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("slow not exported")
		}
	}
	cs := connectInMemory(t, s, nil)
	type answer struct {
		r   *mcpsdk.CallToolResult
		err error
	}
	got := make(chan answer, 1)
	go func() {
		r, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		got <- answer{r, err}
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool did not start")
	}
	go func() { _ = s.Close() }()
	select {
	case a := <-got:
		if a.err != nil {
			t.Fatalf("CallTool: %v", a.err)
		}
		var text strings.Builder
		for _, c := range a.r.Content {
			if tc, ok := c.(*mcpsdk.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if !a.r.IsError || !strings.Contains(text.String(), "Cancelled") || !strings.Contains(text.String(), "shutting down") {
			t.Errorf("call at Close: IsError %v, %q; want a Cancelled error saying the host is shutting down", a.r.IsError, text.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer for the call in flight")
	}
}

// TestJWKSFileFIFORefused: an mcp.http jwks_file that is a FIFO
// (nothing writing to it) fails the key fetch at once, naming it; before,
// the fetch waited for a writer forever, holding the fetch lock, and every
// /mcp request with a token of a new key hung behind it.
func TestJWKSFileFIFORefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "jwks.json")
	testutil.Mkfifo(t, fifo)
	v := newVerifier(HTTPConfig{Issuer: "https://issuer.example", JWKSFile: fifo}, func() string { return "" }, nil)
	done := make(chan error, 1)
	go func() {
		_, err := v.fetch(context.Background())
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("fetch of a FIFO jwks_file: %v; want an error naming it, not a regular file", err)
		}
	case <-time.After(3 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("fetch of a FIFO jwks_file: still reading after 3 s")
	}
}
