package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLargeArgumentsShareDecodeBudget: the arguments of each tools/call
// were bounded in what they may decode to, those of concurrent calls
// together were not. Large arguments now share limits.max_decode_bytes
// (with the JSON-RPC server's large messages) while their call runs: a
// call that does not fit waits until another is answered, small ones
// never wait.
func TestLargeArgumentsShareDecodeBudget(t *testing.T) {
	h, s := newTestHost(t, "limits:\n  max_decode_bytes: 150000\n")
	started := make(chan struct{}, 1)
	addSlowTool(t, h, started)
	for deadline := time.Now().Add(5 * time.Second); !contains(s.Tools(), "slow"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("slow not exported")
		}
	}
	cs := connectInMemory(t, s, nil)
	pad := strings.Repeat("x", 100_000)
	first, cancelFirst := context.WithCancel(context.Background())
	defer cancelFirst()
	go func() {
		_, _ = cs.CallTool(first, &mcpsdk.CallToolParams{Name: "slow", Arguments: map[string]any{"pad": pad}})
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("slow did not start")
	}
	echoDone := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "echo", Arguments: map[string]any{"value": pad}})
		if err == nil && res.IsError {
			err = errorText(res)
		}
		echoDone <- err
	}()
	if res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "echo", Arguments: map[string]any{"value": "small"}}); err != nil || res.IsError {
		t.Fatalf("a small call while the budget is held: %v %v", err, res)
	}
	select {
	case err := <-echoDone:
		t.Fatalf("second large arguments were handled while the first held the budget: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	cancelFirst()
	select {
	case err := <-echoDone:
		if err != nil {
			t.Fatalf("the waiting call, once the first was answered: %v", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("the waiting call was not run after the first was answered")
	}
}

type textError string

func (e textError) Error() string { return string(e) }

func errorText(res *mcpsdk.CallToolResult) error {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return textError(b.String())
}
