package native

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestContextErrorNamesTool: a handler returning its context's error
// (the deadline passed, the caller went away), as Go code does, reached
// the caller as "Timeout: deadline exceeded: context deadline exceeded" or
// "Cancelled: context canceled", naming no tool: through a chain of nested
// calls the agent could not tell which one ran out of time. The error names
// the tool and its provider, the handler's own words kept.
func TestContextErrorNamesTool(t *testing.T) {
	p := New(abi.ProviderInfo{ID: "org.probe.waiter"})
	p.MustRegister(abi.ToolDef{Name: "wait", Version: "1.2.0"}, func(ctx context.Context, _ any, _ abi.Env) (any, error) {
		<-ctx.Done()
		return nil, fmt.Errorf("fetching the page: %w", ctx.Err())
	})
	call := &abi.ToolCall{Tool: "wait", Version: "1.2.0"}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := p.Call(ctx, call, nil)
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "wait@1.2.0") || !strings.Contains(err.Error(), "org.probe.waiter") ||
		!strings.Contains(err.Error(), "fetching the page: context deadline exceeded") {
		t.Errorf("deadline: %v, want Timeout naming wait@1.2.0 of org.probe.waiter and the handler's words", err)
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel2)
	_, err = p.Call(ctx2, call, nil)
	if abi.CodeOf(err) != abi.Cancelled || !strings.Contains(err.Error(), "wait@1.2.0") || !strings.Contains(err.Error(), "org.probe.waiter") ||
		!strings.Contains(err.Error(), "fetching the page: context canceled") {
		t.Errorf("cancel: %v, want Cancelled naming wait@1.2.0 of org.probe.waiter and the handler's words", err)
	}

	// A handler's own ToolError passes unchanged.
	p.MustRegister(abi.ToolDef{Name: "own", Version: "1.0.0"}, func(ctx context.Context, _ any, _ abi.Env) (any, error) {
		return nil, &abi.ToolError{Code: abi.Timeout, Message: "upstream took too long"}
	})
	_, err = p.Call(context.Background(), &abi.ToolCall{Tool: "own", Version: "1.0.0"}, nil)
	if err == nil || err.Error() != "Timeout: upstream took too long" {
		t.Errorf("own ToolError: %v", err)
	}
}
